/**
 * Copies a project's whole history from a SQLite store into an empty PostgreSQL store: tasks,
 * runs, stages, checkpoints, findings, events, markers and learnings, with their ids, in ONE PostgreSQL
 * transaction (a failure leaves the target as it was). A target that already holds tasks or
 * markers is refused, so running the copy twice cannot duplicate anything.
 */
import Database from "better-sqlite3";
import type pg from "pg";
import type { Json } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { openPool } from "./postgres/connection.js";
import { describeUrl, toPgStoreError } from "./postgres/errors.js";
import { migratePg } from "./postgres/migrate.js";
import { Params, type PgValue } from "./postgres/sql.js";
import { sqliteAddonPath } from "./sqlite/native-addon.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import { parseJson } from "./sqlite/tolerant.js";

/**
 * Tables in foreign-key order; JSON columns with the value an unreadable one is copied as;
 * columns whose PostgreSQL type needs a conversion (`cast`).
 */
const TABLES: readonly {
  name: string;
  order: string;
  json: Record<string, "{}" | "[]" | "text">;
  cast?: Record<string, "bytea" | "boolean">;
}[] = [
  { name: "tasks", order: "seq", json: { budget: "{}", agents: "{}", meta: "{}" } },
  { name: "runs", order: "id", json: { meta: "{}" } },
  { name: "stage_executions", order: "id", json: {} },
  { name: "events", order: "id", json: { data: "{}" } },
  // rowid: first-insertion order, which the PostgreSQL store keeps in `ord`.
  { name: "findings", order: "rowid", json: { sources: "[]", attempts: "[]" } },
  // A checkpoint that is not JSON is kept as a JSON string, which the engine reports as corrupted,
  // exactly as it would from SQLite.
  { name: "checkpoints", order: "run_id, seq", json: { state: "text" } },
  { name: "markers", order: "key", json: { value: "text" } },
  // Compressed bytes (BLOB → BYTEA, as base64 text decoded by the server) and a 0/1 flag.
  {
    name: "artifacts",
    order: "task_id, kind, name",
    json: {},
    cast: { data: "bytea", truncated: "boolean" },
  },
  // source and origin are TEXT in both dialects: copied as they are.
  { name: "learnings", order: "seq", json: {} },
];
const IDENTITY_TABLES = ["runs", "stage_executions", "events"] as const;
const BATCH = 500;

export type CopyCounts = Record<string, number>;

type SqliteRow = Record<string, string | number | bigint | Buffer | null>;

function cell(v: SqliteRow[string]): PgValue {
  if (typeof v === "bigint") return Number(v);
  if (Buffer.isBuffer(v)) return v.toString("utf8");
  return v ?? null;
}

function jsonCell(v: SqliteRow[string], fallback: "{}" | "[]" | "text", p: Params): string {
  const parsed = parseJson(typeof v === "string" ? v : null);
  if (parsed !== undefined) return p.json(parsed as Json);
  if (fallback === "text") return p.json(typeof v === "string" ? v : null);
  return p.json(fallback === "{}" ? {} : []);
}

async function insertBatch(
  client: pg.PoolClient,
  table: (typeof TABLES)[number],
  columns: string[],
  rows: SqliteRow[],
): Promise<void> {
  const p = new Params();
  const tuples = rows.map((r) => {
    const cells = columns.map((c) => {
      const v = r[c] ?? null;
      const cast = table.cast?.[c];
      if (cast === "bytea")
        return `decode(${p.add(Buffer.isBuffer(v) ? v.toString("base64") : "")}, 'base64')`;
      if (cast === "boolean") return `(${p.add(Number(v ?? 0))}::int <> 0)`;
      const fallback = table.json[c];
      return fallback === undefined ? p.add(cell(r[c] ?? null)) : jsonCell(r[c] ?? null, fallback, p);
    });
    return `(${cells.join(", ")})`;
  });
  await client.query(
    `INSERT INTO ${table.name} (${columns.join(", ")}) VALUES ${tuples.join(", ")}`,
    p.values,
  );
}

/** Copies one table's rows in BATCH-row inserts, in its order; returns how many. */
async function copyTable(
  source: Database.Database,
  client: pg.PoolClient,
  table: (typeof TABLES)[number],
): Promise<number> {
  const stmt = source.prepare(`SELECT * FROM ${table.name} ORDER BY ${table.order}`);
  const columns = stmt.columns().map((c) => c.name);
  let batch: SqliteRow[] = [];
  let n = 0;
  for (const r of stmt.iterate() as Iterable<SqliteRow>) {
    batch.push(r);
    if (batch.length === BATCH) {
      await insertBatch(client, table, columns, batch);
      n += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) await insertBatch(client, table, columns, batch);
  return n + batch.length;
}

/** `path` is a SQLite file, `url` a postgres:// URL. Returns the rows copied per table. */
export async function copySqliteToPostgres(path: string, url: string): Promise<CopyCounts> {
  // Opening through the store brings an older file up to the current schema first.
  await (await openSqliteStore(path)).close();
  const source = new Database(path, {
    readonly: true,
    fileMustExist: true,
    nativeBinding: sqliteAddonPath(),
  });
  let pool: pg.Pool | undefined;
  let client: pg.PoolClient | undefined;
  try {
    pool = await openPool(url);
    await migratePg(pool, url);
    client = await pool.connect();
    await client.query("BEGIN");
    // No worker may create tasks while the copy decides the target is empty and fills it.
    await client.query("LOCK TABLE tasks, markers IN EXCLUSIVE MODE");
    const existing = await client.query(
      "SELECT (SELECT COUNT(*) FROM tasks) AS tasks, (SELECT COUNT(*) FROM markers) AS markers",
    );
    const row = existing.rows[0] as { tasks: number; markers: number } | undefined;
    if ((row?.tasks ?? 0) > 0 || (row?.markers ?? 0) > 0) {
      throw new FixpointError(
        "usage",
        `the target ${describeUrl(url)} already holds ${row?.tasks ?? 0} task(s) and ${row?.markers ?? 0} marker(s); store copy only fills an empty database, so nothing was copied`,
      );
    }
    const counts: CopyCounts = {};
    for (const table of TABLES) counts[table.name] = await copyTable(source, client, table);
    // New rows continue after the copied ids.
    for (const t of IDENTITY_TABLES) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence('${t}', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM ${t}), 1), (SELECT COUNT(*) > 0 FROM ${t}))`,
      );
    }
    await client.query(
      "SELECT setval(pg_get_serial_sequence('learnings', 'seq'), GREATEST((SELECT COALESCE(MAX(seq), 0) FROM learnings), 1), (SELECT COUNT(*) > 0 FROM learnings))",
    );
    await client.query("COMMIT");
    return counts;
  } catch (e) {
    await client?.query("ROLLBACK").catch(() => undefined);
    throw toPgStoreError(e, url, "copying the store");
  } finally {
    client?.release();
    source.close();
    await pool?.end().catch(() => undefined);
  }
}
