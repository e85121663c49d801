import { isConnectionError, toPgStoreError } from "./errors.js";
import pg from "./pg-driver.js";

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
  /** How long a statement may go unanswered before its connection is given up (default 30 s). */
  queryTimeoutMs?: number;
}

/**
 * How long one statement may go unanswered. Without it a statement sent into a network partition
 * (the cable pulled, packets dropped, no reset) waits forever, holding its connection; with it the
 * statement fails as a lost connection (a write is then reported, never repeated) and the
 * connection is thrown away, so its late answer cannot reach the next statement. Long enough for
 * any statement fixpoint sends; `?query_timeout=<ms>` in the database URL overrides it.
 */
export const QUERY_TIMEOUT_MS = 30_000;

/**
 * The server ends a session that sits inside a transaction for this long. A worker cut off in the
 * middle of a transaction would otherwise keep the task's row locked on the server, where no
 * other worker's claim (`SKIP LOCKED`) could take it after its lease ended. fixpoint's
 * transactions never wait on anything but the database.
 */
export const IDLE_IN_TRANSACTION_MS = 10_000;

/** TCP keep-alive on every connection, so a peer that vanished is noticed on an idle connection too. */
export const KEEPALIVE_DELAY_MS = 10_000;

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
    query_timeout: opts.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
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
