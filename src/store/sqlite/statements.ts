import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "./connection.js";
import type { Cell, Row } from "./rows.js";
import type { Params } from "./task-sql.js";

/**
 * Prepared statements keyed by their SQL text. Preparing costs more than running a small
 * statement, and the engine's per-stage budget is 2 ms, so every statement is compiled once per
 * connection. Dynamic statements are keyed by shape (see task-sql.ts), so the cache stays small.
 */
export class Statements {
  private readonly cache = new Map<string, Statement>();
  private readonly rawCache = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  private prepare(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  /** The same statement in raw mode (rows as arrays); raw mode sticks to a statement, hence its own cache. */
  private prepareRaw(sql: string): Statement {
    let stmt = this.rawCache.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql).raw(true);
      this.rawCache.set(sql, stmt);
    }
    return stmt;
  }

  /** Prepares `sql` ahead of its first run, at a moment the caller would otherwise spend waiting. */
  compile(sql: string): void {
    this.prepare(sql);
  }

  // better-sqlite3 types rows as unknown; every column we select is TEXT, INTEGER, REAL or NULL,
  // which is exactly what Row describes, and the mappers in rows.ts check each cell.
  get(sql: string, params: Params = {}): Row | undefined {
    return this.prepare(sql).get(params) as Row | undefined;
  }

  all(sql: string, params: Params = {}): Row[] {
    return this.prepare(sql).all(params) as Row[];
  }

  getCells(sql: string, params: Params = {}): Cell[] | undefined {
    return this.prepareRaw(sql).get(params) as Cell[] | undefined;
  }

  allCells(sql: string, params: Params = {}): Cell[][] {
    return this.prepareRaw(sql).all(params) as Cell[][];
  }

  /** Number of rows changed. A write may also bind bytes (a BLOB column: an artifact's data). */
  run(sql: string, params: Params | Record<string, Params[string] | Uint8Array> = {}): number {
    return this.prepare(sql).run(params).changes;
  }

  /** Runs an INSERT; the new row's rowid. */
  insert(sql: string, params: Params = {}): number {
    return Number(this.prepare(sql).run(params).lastInsertRowid);
  }
}
