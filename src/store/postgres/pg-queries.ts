import { createHash } from "node:crypto";
import type { Cell, Row } from "../sqlite/rows.js";
import { BinaryCopySplitter, type TupleReader } from "./binary-copy.js";
import { backoffMs } from "./connection.js";
import { readCopyFromSocket } from "./copy-socket.js";
import { isConnectionError, toPgStoreError } from "./errors.js";
import pg from "./pg-driver.js";
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

/**
 * `COPY (…) TO STDOUT (FORMAT binary)` as a Submittable: sent as a simple query (no name, no
 * parameters: COPY takes none), its CopyData messages handed to a splitter as they arrive, and
 * ended through its callback, as node-postgres' own queries are: with a query timeout set (the
 * pool's) node-postgres wraps the callback and sends an error only there, never as an `error` event.
 */
class CopyStream extends pg.Query {
  /** What the reader threw: the data after it is skipped, and the statement fails with it once it ends. */
  failure: unknown;

  constructor(
    text: string,
    private readonly into: BinaryCopySplitter<unknown>,
    done: (err: Error | undefined) => void,
  ) {
    let giveBack = (): void => {};
    super({ text }, (err) => {
      giveBack();
      done(err ?? undefined);
    });
    // A reader that writes whole messages natively reads them from the socket (copy-socket.ts).
    if (into.readsMessages) {
      const submit = this.submit;
      this.submit = (connection) => {
        giveBack = readCopyFromSocket(
          connection.stream,
          into,
          () => this.failure !== undefined,
          (e) => {
            this.failure = e ?? new Error("a COPY's data could not be read");
          },
        );
        return submit.call(this, connection);
      };
    }
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    // Called from the socket's data handler: an exception here would end the process.
    if (this.failure !== undefined) return;
    try {
      this.into.data(msg.chunk);
    } catch (e) {
      this.failure = e ?? new Error("a COPY's data could not be read");
    }
  }
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

  private run(action: string, plain: Query, read: boolean): Promise<pg.QueryResult> {
    return this.runWith(action, plain, read, (client, query) => client.query(query));
  }

  /**
   * `send` runs the statement on a connection: once, or again on another after a dropped one.
   * `prepared`: kept as a named statement per connection (a statement whose text holds values is not).
   */
  private async runWith<T>(
    action: string,
    plain: Query,
    read: boolean,
    send: (client: pg.PoolClient, query: Query) => Promise<T>,
    prepared = true,
  ): Promise<T> {
    const query = prepared ? named(plain) : plain;
    if (this.client !== null) {
      try {
        return await send(this.client, query);
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
        return await send(client, query);
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

  /**
   * A read as binary COPY (`select` is a SELECT of `fields` columns whose values are written into
   * its text, see InlineValues), its tuples handed to a reader as they arrive, their bytes never
   * made strings. Asked again after a dropped connection, with a new reader.
   */
  protected eachTuple<T>(
    action: string,
    select: string,
    fields: number,
    reader: () => TupleReader<T>,
  ): Promise<T> {
    const text = `COPY (${select}) TO STDOUT (FORMAT binary)`;
    const plain = { text, values: [] };
    const send = (client: pg.PoolClient) => {
      const into = new BinaryCopySplitter(reader(), fields);
      return new Promise<T>((resolve, reject) => {
        const q = new CopyStream(text, into, (err) => {
          if (err !== undefined) return reject(err);
          if (q.failure !== undefined) return reject(q.failure);
          try {
            resolve(into.end());
          } catch (e) {
            reject(e);
          }
        });
        client.query(q);
      });
    };
    return this.runWith(action, plain, true, send, false);
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
