import { createHash } from "node:crypto";
import type pg from "pg";
import type { Cell, Row } from "../sqlite/rows.js";
import { backoffMs } from "./connection.js";
import { isConnectionError, toPgStoreError } from "./errors.js";
import type { Params } from "./sql.js";

/** Reads outside a transaction are retried this many times when the connection drops. */
const READ_ATTEMPTS = 4;
/** Attempts to get a connection from the pool while the server is unreachable. */
const CONNECT_ATTEMPTS = 7;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Settings {
  url: string;
  leaseClock: "database" | "caller";
}

export type Query = { text: string; values: Params["values"]; rowMode?: "array"; name?: string };

/**
 * Statements are prepared once per connection under a name derived from their text (the text
 * is built from a call's shape, never its values), so a claim is not parsed and planned again on
 * every call. Large one-off statements (many-row inserts) are not kept.
 */
const preparedNames = new Map<string, string>();
function named(query: Query): Query {
  if (query.values.length > 40) return query;
  let name = preparedNames.get(query.text);
  if (name === undefined) {
    name = `fp_${createHash("sha1").update(query.text).digest("hex").slice(0, 20)}`;
    if (preparedNames.size < 1000) preparedNames.set(query.text, name);
  }
  return { ...query, name };
}

/**
 * Running statements over either the pool (each call its own statement or transaction) or one
 * client inside a transaction (every call joins it): connection retries with backoff, reads asked
 * again after a dropped connection, writes never. The store's operations build on it.
 */
export abstract class PgQueries {
  constructor(
    protected readonly pool: pg.Pool,
    protected readonly client: pg.PoolClient | null,
    protected readonly settings: Settings,
  ) {}

  private async run(action: string, plain: Query, read: boolean): Promise<pg.QueryResult> {
    const query = named(plain);
    if (this.client !== null) {
      try {
        return await this.client.query(query);
      } catch (e) {
        throw toPgStoreError(e, this.settings.url, action);
      }
    }
    // Getting a connection is retried with backoff (nothing was sent yet). A statement that lost
    // its connection is asked again only when it is a read: a write may have committed before
    // the connection dropped, so it is reported instead of applied twice.
    for (let attempt = 0; ; attempt++) {
      const client = await this.connect(action);
      let broken: Error | undefined;
      try {
        return await client.query(query);
      } catch (e) {
        if (isConnectionError(e)) broken = e instanceof Error ? e : new Error(String(e));
        if (!read || broken === undefined || attempt + 1 >= READ_ATTEMPTS)
          throw toPgStoreError(e, this.settings.url, action);
      } finally {
        client.release(broken);
      }
      await sleep(backoffMs(attempt));
    }
  }

  /**
   * A connection with a transaction open. A connection that turns out dead at BEGIN (the server
   * restarted while it sat idle) is dropped and another one taken: nothing was written yet.
   */
  private async begin(action: string): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.connect(action);
      try {
        await client.query("BEGIN");
        return client;
      } catch (e) {
        const dead = isConnectionError(e);
        client.release(dead ? (e instanceof Error ? e : new Error(String(e))) : undefined);
        if (!dead || attempt + 1 >= READ_ATTEMPTS) throw toPgStoreError(e, this.settings.url, action);
      }
      await sleep(backoffMs(attempt));
    }
  }

  /** A pooled connection; an unreachable server is tried again with backoff (about 20 s in all). */
  protected async connect(action: string): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.pool.connect();
      } catch (e) {
        if (!isConnectionError(e) || attempt + 1 >= CONNECT_ATTEMPTS)
          throw toPgStoreError(e, this.settings.url, action);
        await sleep(backoffMs(attempt));
      }
    }
  }

  protected rows(action: string, sql: string, p: Params, read = true): Promise<Row[]> {
    return this.run(action, { text: sql, values: p.values }, read).then((r) => r.rows as Row[]);
  }

  protected cells(action: string, sql: string, p: Params, read = true): Promise<Cell[][]> {
    return this.run(action, { text: sql, values: p.values, rowMode: "array" }, read).then(
      (r) => r.rows as Cell[][],
    );
  }

  protected async count(action: string, sql: string, p: Params, read = false): Promise<number> {
    return (await this.run(action, { text: sql, values: p.values }, read)).rowCount ?? 0;
  }

  /** The same operations bound to `client`, an open transaction. */
  protected abstract joined(client: pg.PoolClient): this;

  /** Runs `fn` in a transaction: the open one, or a new one on its own connection. */
  protected async atomic<T>(action: string, fn: (ops: this) => Promise<T>): Promise<T> {
    if (this.client !== null) return fn(this);
    const client = await this.begin(action);
    let broken: Error | undefined;
    try {
      const result = await fn(this.joined(client));
      await client.query("COMMIT");
      return result;
    } catch (e) {
      // A connection that went silent (a statement timed out) is thrown away unanswered: its
      // ROLLBACK would only wait out the timeout again; the server rolls back when it ends.
      const raw = e instanceof Error && e.cause !== undefined ? e.cause : e;
      if (isConnectionError(raw)) broken = raw instanceof Error ? raw : new Error(String(raw));
      else
        await client.query("ROLLBACK").catch((err: unknown) => {
          broken = err instanceof Error ? err : new Error(String(err));
        });
      throw toPgStoreError(e, this.settings.url, action);
    } finally {
      client.release(broken);
    }
  }
}
