import pg from "pg";
import { isConnectionError, toPgStoreError } from "./errors.js";

const INT8 = 20;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;

/**
 * How values come back: BIGINT and NUMERIC as numbers (ids, epoch milliseconds and token counts
 * all fit in 2^53), json/jsonb as their text, so the same tolerant readers as SQLite's parse them
 * (a malformed or unexpected bag never crashes a reader).
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: "text" | "binary") => {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v);
    if (oid === JSON_OID || oid === JSONB) return (v: string) => v;
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PoolOptions {
  /** Connections kept per process; a worker needs one per concurrent task plus a spare. */
  max?: number;
  /** Attempts to reach the server at open before giving up (with backoff between them). */
  connectAttempts?: number;
  connectTimeoutMs?: number;
}

/** Exponential backoff with jitter, capped: 200 ms, 400 ms, … 5 s. */
export function backoffMs(attempt: number): number {
  const base = Math.min(5000, 200 * 2 ** attempt);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Opens a pool and proves it can connect, retrying an unreachable server with backoff. A wrong
 * password or a missing database is not retried: it will not fix itself.
 */
export async function openPool(url: string, opts: PoolOptions = {}): Promise<pg.Pool> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
    types: TYPES,
    application_name: "fixpoint",
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the pool discards it and the next query opens a new one.
  pool.on("error", () => undefined);
  // node-postgres also emits a dropped connection as an "error" event on a client that is checked
  // out (even mid-query, which is rejected as well); unheard, that event would end the process.
  // The query's rejection is what the store acts on.
  pool.on("connect", (client) => client.on("error", () => undefined));
  const attempts = Math.max(1, opts.connectAttempts ?? 5);
  for (let attempt = 0; ; attempt++) {
    try {
      const client = await pool.connect();
      client.release();
      return pool;
    } catch (e) {
      if (!isConnectionError(e) || attempt + 1 >= attempts) {
        await pool.end().catch(() => undefined);
        throw toPgStoreError(e, url, "connecting");
      }
      await sleep(backoffMs(attempt));
    }
  }
}
