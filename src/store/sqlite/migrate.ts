import type { SqliteDatabase } from "./connection.js";
import { MIGRATIONS, type Migration } from "./migrations/index.js";
import { refuseNewer, schemaVersion } from "./schema-version.js";

/**
 * Brings the schema up to date. Safe when several processes open a fresh file at once: the
 * version is re-read under BEGIN IMMEDIATE (the write lock), so exactly one of them migrates and
 * the others find nothing to do. The common case (already current) takes no write lock at all,
 * so `status` never waits behind a busy worker.
 */
export function migrate(
  db: SqliteDatabase,
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
): void {
  const latest = migrations.at(-1)?.version ?? 0;
  const seen = schemaVersion(db);
  if (seen > latest) throw refuseNewer(path, seen, latest);
  if (seen === latest) return;

  db.exec("BEGIN IMMEDIATE");
  try {
    const current = schemaVersion(db);
    if (current > latest) throw refuseNewer(path, current, latest);
    db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const m of migrations) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      record.run(m.version, m.name, Date.now());
    }
    // PRAGMA takes no bound parameters; the value is our own integer.
    db.pragma(`user_version = ${latest}`);
    db.exec("COMMIT");
  } catch (e) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw e;
  }
}
