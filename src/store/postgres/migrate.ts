import type pg from "pg";
import { FixpointError } from "../../errors.js";
import { describeUrl } from "./errors.js";
import { PG_MIGRATIONS, type PgMigration } from "./migrations/index.js";

/** Any constant shared by every fixpoint: the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 7_212_026_012;

function refuseNewer(url: string, version: number, latest: number): FixpointError {
  return new FixpointError(
    "store_version",
    `the database ${describeUrl(url)} has schema version ${version}, which is newer than this fixpoint (${latest}); upgrade fixpoint on this machine to use it`,
  );
}

async function appliedVersion(client: pg.PoolClient): Promise<number> {
  const exists = await client.query(
    "SELECT to_regclass('fixpoint_schema_migrations') IS NOT NULL AS present",
  );
  if (exists.rows[0]?.present !== true) return 0;
  const r = await client.query("SELECT COALESCE(MAX(version), 0) AS v FROM fixpoint_schema_migrations");
  return Number(r.rows[0]?.v ?? 0);
}

/**
 * Brings the schema up to date under a session advisory lock: when several workers start at
 * once, one migrates and the others wait, then find nothing to do. Each migration commits with
 * its version row, so an interrupted upgrade resumes at the first migration not applied.
 */
export async function migratePg(
  pool: pg.Pool,
  url: string,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<void> {
  const latest = migrations.at(-1)?.version ?? 0;
  const client = await pool.connect();
  try {
    const seen = await appliedVersion(client);
    if (seen > latest) throw refuseNewer(url, seen, latest);
    if (seen === latest) return;
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      const current = await appliedVersion(client);
      if (current > latest) throw refuseNewer(url, current, latest);
      await client.query(
        "CREATE TABLE IF NOT EXISTS fixpoint_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
      );
      for (const m of migrations) {
        if (m.version <= current) continue;
        await client.query("BEGIN");
        try {
          await client.query(m.sql);
          await client.query(
            "INSERT INTO fixpoint_schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
            [m.version, m.name, Date.now()],
          );
          await client.query("COMMIT");
        } catch (e) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw e;
        }
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}
