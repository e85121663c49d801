import type {
  ClaimRequest,
  Lease,
  TaskFilter,
  TaskJsonPage,
  TaskLinePage,
  TaskLineQuery,
  TaskPatch,
} from "../../domain/store.js";
import type { NewTask, Task, TaskSummary } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { holdsTokenShape } from "../../util/redact.js";
import {
  type BackgroundCheckpoints,
  FRAMES_BEFORE_THREAD,
  startBackgroundCheckpoints,
  WRITES_BEFORE_THREAD,
  WRITES_BETWEEN_LOOKS,
  walHasReached,
} from "./background-checkpoints.js";
import type { SqliteDatabase } from "./connection.js";
import { toStoreError } from "./errors.js";
import { SUMMARY_SELECT, TASK_SELECT, toTask, toTaskSummary } from "./rows.js";
import { Statements } from "./statements.js";
import { taskJsonOnlyPageSql, taskJsonPageSql } from "./task-json-sql.js";
import {
  hintedRowsSql,
  linesOnly,
  MAX_PADDED_WIDTH,
  secretParams,
  taskLinesPageSql,
  WIDTH_PARAM,
} from "./task-lines-sql.js";
import {
  CLAIM_AMONG,
  CLAIM_ANY,
  filterSql,
  INSERT_TASK,
  insertTaskParams,
  type Params,
  patchSql,
} from "./task-sql.js";

const NUMERIC_ID = /^\d+$/;

/**
 * The SQLite store's one connection and how every call runs on it (`op`, `write`), with tasks,
 * claims and leases on top: queue semantics in SQL (task-sql.ts). `SqliteStore` adds the rest.
 */
export abstract class SqliteTaskOps {
  protected readonly sql: Statements;

  constructor(
    protected readonly db: SqliteDatabase,
    protected readonly path: string,
    protected readonly busyTimeoutMs: number,
  ) {
    this.sql = new Statements(db);
    this.immediate = db.transaction((fn: () => unknown) => fn()).immediate;
  }

  /**
   * Runs a function in a BEGIN IMMEDIATE transaction (a savepoint inside one). Made once per
   * connection: better-sqlite3's `transaction(fn)` builds four wrappers per call, 25 µs of a
   * 300 µs claim (docs/benchmarks.md).
   */
  private readonly immediate: (fn: () => unknown) => unknown;

  /**
   * Open while a `transaction` runs: better-sqlite3 has one connection, so every other call waits
   * for the transaction to end instead of running inside it. The transaction's own handle (`tx`,
   * an object whose prototype is this store with `inTx` set) goes straight through.
   */
  protected gate: Promise<void> | null = null;
  protected readonly inTx: boolean = false;

  /**
   * Committed write transactions, and the checkpoint thread (background-checkpoints.ts), started
   * once the store has made WRITES_BEFORE_THREAD of them and its WAL has reached
   * FRAMES_BEFORE_THREAD. One object shared with every transaction handle (`tx` inherits it), so
   * a count made through a handle is the store's.
   */
  protected readonly checkpoints: { writes: number; thread: BackgroundCheckpoints | null } = {
    writes: 0,
    thread: null,
  };

  /** Called after each committed write transaction. */
  protected committed(): void {
    const c = this.checkpoints;
    if (c.thread !== null) return;
    const writes = ++c.writes;
    if (writes < WRITES_BEFORE_THREAD || writes % WRITES_BETWEEN_LOOKS !== 0 || !this.db.open) return;
    const pageSize = Number(this.db.pragma("page_size", { simple: true }));
    if (!walHasReached(this.path, FRAMES_BEFORE_THREAD, pageSize)) return;
    c.thread = startBackgroundCheckpoints(this.db, this.path);
  }

  /** Runs `fn` synchronously, mapping any failure to a FixpointError (as a rejection). */
  protected async op<T>(action: string, fn: () => T): Promise<T> {
    if (!this.inTx) while (this.gate !== null) await this.gate;
    try {
      return fn();
    } catch (e) {
      throw toStoreError(e, this.path, this.busyTimeoutMs, action);
    }
  }

  protected write<T>(action: string, fn: () => T): Promise<T> {
    return this.op(action, () => {
      const out = this.immediate(fn) as T;
      if (!this.inTx) this.committed();
      return out;
    });
  }

  // ---- tasks

  private insertTask(input: NewTask, now: number): Task {
    let seq = Number(this.sql.get("SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM tasks")?.next ?? 1);
    let id = input.id;
    if (id === undefined) {
      // A task created with an explicit `t-<n>` id may already own the next number.
      while (this.sql.get("SELECT 1 AS x FROM tasks WHERE id = @id", { id: `t-${seq}` })) seq++;
      id = `t-${seq}`;
    } else if (this.sql.get("SELECT 1 AS x FROM tasks WHERE id = @id", { id })) {
      throw new FixpointError("store", `a task with id ${id} already exists`);
    }
    const row = this.sql.getCells(INSERT_TASK, insertTaskParams(input, id, seq, now));
    if (row === undefined) throw new FixpointError("store", `creating task ${id} returned nothing`);
    return toTask(row);
  }

  createTask(input: NewTask, now: number): Promise<Task> {
    return this.write("creating a task", () => this.insertTask(input, now));
  }

  createTaskOnce(input: NewTask & { id: string }, now: number): Promise<{ task: Task; created: boolean }> {
    return this.write("creating a task", () => {
      const existing = this.sql.getCells(`SELECT ${TASK_SELECT} FROM tasks WHERE id = @id`, { id: input.id });
      if (existing !== undefined) return { task: toTask(existing), created: false };
      return { task: this.insertTask(input, now), created: true };
    });
  }

  getTask(idOrNumber: string): Promise<Task | null> {
    return this.op("reading a task", () => {
      const byId = `SELECT ${TASK_SELECT} FROM tasks WHERE id = @id`;
      let row = this.sql.getCells(byId, { id: idOrNumber });
      if (row === undefined && NUMERIC_ID.test(idOrNumber)) {
        row = this.sql.getCells(byId, { id: `t-${Number(idOrNumber)}` });
      }
      return row === undefined ? null : toTask(row);
    });
  }

  listTasks(filter: TaskFilter = {}): Promise<Task[]> {
    return this.op("listing tasks", () => {
      const { clause, params } = filterSql(filter, false);
      return this.sql.allCells(`SELECT ${TASK_SELECT} FROM tasks${clause}`, params).map(toTask);
    });
  }

  listTaskSummaries(filter: TaskFilter = {}): Promise<TaskSummary[]> {
    return this.op("listing tasks", () => {
      const { clause, params } = filterSql(filter, false, true);
      return this.sql.allCells(`SELECT ${SUMMARY_SELECT} FROM tasks${clause}`, params).map(toTaskSummary);
    });
  }

  listTaskJson(filter: TaskFilter & { limit: number }): Promise<TaskJsonPage> {
    return this.op("listing tasks", () => {
      const { clause, params } = filterSql(filter, false, true);
      const sql = taskJsonOnlyPageSql(clause, filter) ?? taskJsonPageSql(clause, filter.newestFirst === true);
      const row = this.sql.get(sql, params);
      const count = Number(row?.n ?? 0);
      // The one BLOB the store selects (CAST in task-json-sql.ts): better-sqlite3 hands it over as
      // a Buffer, a copy of SQLite's bytes; Row's types name only the text and number columns.
      const json: unknown = row?.json;
      return {
        json: json instanceof Uint8Array ? json : new Uint8Array(0),
        count,
        lastSeq: count === 0 ? null : Number(row?.last),
        tokenFree: row?.hint === 0,
      };
    });
  }

  listTaskLines(q: TaskLineQuery): Promise<TaskLinePage> {
    return this.op("listing tasks", () => {
      const { clause, params } = filterSql(q, false, true);
      const shape = { newestFirst: q.newestFirst === true, linesOnly: linesOnly(q, q.secrets) };
      const bind = { ...params, ...secretParams(q.secrets) };
      let row = this.sql.get(taskLinesPageSql(clause, q.secrets.length, { ...shape, pad: false }), bind);
      // A longer id widens the column from this page on; a shorter one than the column is padded:
      // the page is then made again with the ids padded (for ids `t-<n>` listed by seq, a handful
      // of times in a listing, as the ids grow a digit).
      const width = Math.max(q.idWidth, Number(row?.widest ?? 0));
      const narrowest = Number(row?.narrowest ?? width);
      if (narrowest < width && width <= MAX_PADDED_WIDTH) {
        const sql = taskLinesPageSql(clause, q.secrets.length, { ...shape, pad: true });
        row = this.sql.get(sql, { ...bind, [WIDTH_PARAM]: width });
      }
      const count = Number(row?.n ?? 0);
      // The one BLOB column, as in listTaskJson.
      const lines: unknown = row?.lines;
      // The table hides a secret value in a title or reason before cutting the text, so a page
      // where one is found is formatted by the CLI (as is one a stored line cannot serve).
      const exact =
        row?.secret === 0 &&
        width <= MAX_PADDED_WIDTH &&
        lines instanceof Uint8Array &&
        (row?.exact === 1 || (count > 0 && this.onlyHinted(clause, params)));
      return {
        lines: count === 0 ? new Uint8Array(0) : exact ? lines : null,
        count,
        lastSeq: count === 0 ? null : Number(row?.last),
        idWidth: width,
      };
    });
  }

  /**
   * Whether every row of the page that migration 018 left inexact was left so by its token hint
   * alone (and has its line), and holds no token shape in what its line prints (nor in its whole title and reason,
   * which the table cuts): a page with a URL in a title is then served from the stored lines.
   */
  private onlyHinted(clause: string, params: Params): boolean {
    const rows = this.sql.all(hintedRowsSql(clause), params);
    return rows.every(
      (r) =>
        r.ok === 1 &&
        typeof r.line === "string" &&
        [r.id, r.title, r.reason, r.current_stage, r.parent_id, r.line].every(
          (t) => typeof t !== "string" || !holdsTokenShape(t),
        ),
    );
  }

  countTasks(filter: TaskFilter = {}): Promise<number> {
    return this.op("counting tasks", () => {
      const { clause, params } = filterSql(filter, true);
      return Number(this.sql.get(`SELECT COUNT(*) AS n FROM tasks${clause}`, params)?.n ?? 0);
    });
  }

  protected patchTask(id: string, patch: TaskPatch, now: number): Task {
    const { set, params } = patchSql(patch);
    const sql = `UPDATE tasks SET ${set} WHERE id = @id RETURNING ${TASK_SELECT}`;
    const row = this.sql.getCells(sql, { ...params, id, now });
    if (row === undefined) throw new FixpointError("not_found", `task ${id} not found`);
    return toTask(row);
  }

  /**
   * patchTask for a caller that does not read the task back (a stage's commit moves the task's
   * position every stage): no row returned and decoded, its prompt and JSON columns included.
   */
  protected patchTaskQuietly(id: string, patch: TaskPatch, now: number): void {
    const { set, params } = patchSql(patch);
    const changed = this.sql.run(`UPDATE tasks SET ${set} WHERE id = @id`, { ...params, id, now });
    if (changed === 0) throw new FixpointError("not_found", `task ${id} not found`);
  }

  /** `id` is the stored id (resolve `29` with getTask first). */
  updateTask(id: string, patch: TaskPatch, now: number): Promise<Task> {
    return this.write("updating a task", () => this.patchTask(id, patch, now));
  }

  claimTask(claim: ClaimRequest): Promise<Task | null> {
    return this.write("claiming a task", () => this.claimNow(claim, ""));
  }

  releaseAndClaim(done: { lease: Lease; patch: TaskPatch }, claim: ClaimRequest): Promise<Task | null> {
    return this.write("releasing a task and claiming the next", () => {
      this.releaseNow(done.lease, done.patch, claim.now);
      return this.claimNow(claim, done.lease.taskId);
    });
  }

  /** The claim statement; `exclude` is a task id it must not take ("" for none). */
  private claimNow(claim: ClaimRequest, exclude: string): Task | null {
    const params = {
      workerId: claim.workerId,
      now: claim.now,
      leaseUntil: claim.now + claim.leaseMs,
      exclude,
    };
    const row =
      claim.ids === undefined
        ? this.sql.getCells(CLAIM_ANY, params)
        : this.sql.getCells(CLAIM_AMONG, { ...params, ids: JSON.stringify(claim.ids) });
    return row === undefined ? null : toTask(row);
  }

  heartbeat(lease: Lease, leaseMs: number, now: number): Promise<boolean> {
    return this.write("renewing a lease", () => {
      const changed = this.sql.run(
        "UPDATE tasks SET lease_expires_at = @leaseUntil WHERE id = @id AND worker_id = @workerId AND lease_token = @token AND status = 'running'",
        { id: lease.taskId, workerId: lease.workerId, token: lease.token, leaseUntil: now + leaseMs },
      );
      return changed === 1;
    });
  }

  /**
   * Applies the patch only while `lease` still holds the task: a worker whose lease expired
   * and was taken over must not overwrite the new worker's state. Then it is a no-op.
   */
  releaseTask(lease: Lease, patch: TaskPatch, now: number): Promise<void> {
    return this.write("releasing a task", () => this.releaseNow(lease, patch, now));
  }

  private releaseNow(lease: Lease, patch: TaskPatch, now: number): void {
    const { set, params } = patchSql(patch);
    this.sql.run(
      `UPDATE tasks SET ${set}, worker_id = NULL, lease_expires_at = NULL WHERE id = @id AND worker_id = @workerId AND lease_token = @token`,
      { ...params, id: lease.taskId, workerId: lease.workerId, token: lease.token, now },
    );
  }
}
