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
import { type Cell, SUMMARY_SELECT, TASK_SELECT, toTask, toTaskSummary } from "../sqlite/rows.js";
import { PgQueries } from "./pg-queries.js";
import {
  claimSql,
  DB_NOW_MS,
  filterClause,
  InlineValues,
  insertTaskSql,
  NOTIFY_IF_QUEUED,
  Params,
  patchSet,
  withValues,
} from "./sql.js";
import { TaskJsonPageReader } from "./task-json-page.js";
import { TASK_JSON_FIELDS, taskJsonPageSql } from "./task-json-sql.js";
import { TASK_LINE_FIELDS, TaskLinePageReader, taskLinePageSql } from "./task-line-page.js";

/** Any constant: serialises task creation so `t-<seq>` numbers are handed out once. */
const TASK_SEQ_LOCK = 7_212_026_013;
const NUMERIC_ID = /^\d+$/;

/**
 * Tasks, claims and leases on PostgreSQL: queue semantics in SQL (`FOR UPDATE SKIP LOCKED`,
 * leases on the server's clock unless the caller's is asked for, a fencing token per claim).
 */
export abstract class PgTaskOps extends PgQueries {
  // ---- tasks

  private async insertTask(input: NewTask, now: number): Promise<Task> {
    await this.rows("creating a task", "SELECT pg_advisory_xact_lock($1)", withValues(TASK_SEQ_LOCK), false);
    const next = await this.rows(
      "creating a task",
      "SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM tasks",
      new Params(),
    );
    let seq = Number(next[0]?.next ?? 1);
    let id = input.id;
    if (id === undefined) {
      // A task created with an explicit `t-<n>` id may already own the next number.
      while (
        (await this.rows("creating a task", "SELECT 1 AS x FROM tasks WHERE id = $1", withValues(`t-${seq}`)))
          .length > 0
      )
        seq++;
      id = `t-${seq}`;
    } else if (
      (await this.rows("creating a task", "SELECT 1 AS x FROM tasks WHERE id = $1", withValues(id))).length >
      0
    ) {
      throw new FixpointError("store", `a task with id ${id} already exists`);
    }
    const { sql, params } = insertTaskSql(input, id, seq, now);
    const row = (await this.cells("creating a task", sql, params, false))[0];
    if (row === undefined) throw new FixpointError("store", `creating task ${id} returned nothing`);
    return toTask(row);
  }

  createTask(input: NewTask, now: number): Promise<Task> {
    return this.atomic("creating a task", (ops) => ops.insertTask(input, now));
  }

  createTaskOnce(input: NewTask & { id: string }, now: number): Promise<{ task: Task; created: boolean }> {
    return this.atomic("creating a task", async (ops) => {
      await ops.rows("creating a task", "SELECT pg_advisory_xact_lock($1)", withValues(TASK_SEQ_LOCK), false);
      const existing = await ops.cells(
        "creating a task",
        `SELECT ${TASK_SELECT} FROM tasks WHERE id = $1`,
        withValues(input.id),
      );
      if (existing[0] !== undefined) return { task: toTask(existing[0]), created: false };
      return { task: await ops.insertTask(input, now), created: true };
    });
  }

  async getTask(idOrNumber: string): Promise<Task | null> {
    const byId = `SELECT ${TASK_SELECT} FROM tasks WHERE id = $1`;
    let row = (await this.cells("reading a task", byId, withValues(idOrNumber)))[0];
    if (row === undefined && NUMERIC_ID.test(idOrNumber)) {
      row = (await this.cells("reading a task", byId, withValues(`t-${Number(idOrNumber)}`)))[0];
    }
    return row === undefined ? null : toTask(row);
  }

  async listTasks(filter: TaskFilter = {}): Promise<Task[]> {
    const p = new Params();
    const clause = filterClause(filter, false, p);
    return (await this.cells("listing tasks", `SELECT ${TASK_SELECT} FROM tasks${clause}`, p)).map(toTask);
  }

  async listTaskSummaries(filter: TaskFilter = {}): Promise<TaskSummary[]> {
    const p = new Params();
    const clause = filterClause(filter, false, p);
    return (await this.cells("listing tasks", `SELECT ${SUMMARY_SELECT} FROM tasks${clause}`, p)).map(
      toTaskSummary,
    );
  }

  async listTaskJson(filter: TaskFilter & { limit: number }): Promise<TaskJsonPage> {
    const clause = filterClause(filter, false, new InlineValues());
    return this.eachTuple(
      "listing tasks",
      taskJsonPageSql(clause),
      TASK_JSON_FIELDS,
      () => new TaskJsonPageReader(filter.limit),
    );
  }

  /** The table's lines of a page, written from its columns' bytes (task-line-page.ts). */
  async listTaskLines(q: TaskLineQuery): Promise<TaskLinePage> {
    const clause = filterClause(q, false, new InlineValues());
    return this.eachTuple(
      "listing tasks",
      taskLinePageSql(clause),
      TASK_LINE_FIELDS,
      () => new TaskLinePageReader(q.limit, q.idWidth, q.secrets),
    );
  }

  async countTasks(filter: TaskFilter = {}): Promise<number> {
    const p = new Params();
    const clause = filterClause(filter, true, p);
    const rows = await this.rows("counting tasks", `SELECT COUNT(*) AS n FROM tasks${clause}`, p);
    return Number(rows[0]?.n ?? 0);
  }

  protected async patchTask(id: string, patch: TaskPatch, now: number): Promise<Task> {
    const p = new Params();
    const set = patchSet(patch, now, p);
    // A status set to queued wakes idle workers (after TASK_SELECT: toTask reads by position).
    const notify = patch.status === undefined ? "" : `, ${NOTIFY_IF_QUEUED}`;
    const sql = `UPDATE tasks SET ${set} WHERE id = ${p.add(id)} RETURNING ${TASK_SELECT}${notify}`;
    const row = (await this.cells("updating a task", sql, p, false))[0];
    if (row === undefined) throw new FixpointError("not_found", `task ${id} not found`);
    return toTask(row);
  }

  /** `id` is the stored id (resolve `29` with getTask first). */
  updateTask(id: string, patch: TaskPatch, now: number): Promise<Task> {
    return this.patchTask(id, patch, now);
  }

  claimTask(claim: ClaimRequest): Promise<Task | null> {
    return this.claimWith(claim, undefined);
  }

  releaseAndClaim(done: { lease: Lease; patch: TaskPatch }, claim: ClaimRequest): Promise<Task | null> {
    return this.claimWith(claim, done);
  }

  /** One statement: the claim, after the release of `done` when given (see claimSql). */
  private async claimWith(claim: ClaimRequest, done: { lease: Lease; patch: TaskPatch } | undefined) {
    const { sql, params } = claimSql(
      claim.workerId,
      claim.leaseMs,
      claim.now,
      this.settings.leaseClock,
      claim.ids,
      done,
    );
    const action = done === undefined ? "claiming a task" : "releasing a task and claiming the next";
    const row = (await this.cells(action, sql, params, false))[0];
    return row === undefined ? null : toTask(JSON.parse(String(row[0])) as Cell[]);
  }

  async heartbeat(lease: Lease, leaseMs: number, now: number): Promise<boolean> {
    const p = new Params();
    const base = this.settings.leaseClock === "database" ? DB_NOW_MS : `${p.add(now)}::bigint`;
    const sql = `UPDATE tasks SET lease_expires_at = ${base} + ${p.add(Math.max(0, Math.floor(leaseMs)))}::bigint
      WHERE id = ${p.add(lease.taskId)} AND worker_id = ${p.add(lease.workerId)}
        AND lease_token = ${p.add(lease.token)} AND status = 'running'`;
    return (await this.count("renewing a lease", sql, p)) === 1;
  }

  /**
   * Applies the patch only while `lease` still holds the task: a worker whose lease expired
   * and was taken over must not overwrite the new worker's state. Then it is a no-op.
   */
  async releaseTask(lease: Lease, patch: TaskPatch, now: number): Promise<void> {
    const p = new Params();
    const set = patchSet(patch, now, p);
    // A task left queued (put back, or queued while held) wakes idle workers; a completion
    // (a final status) has nothing to announce and runs no trigger.
    const notify =
      patch.status === undefined || patch.status === "queued" ? ` RETURNING ${NOTIFY_IF_QUEUED}` : "";
    await this.count(
      "releasing a task",
      `UPDATE tasks SET ${set}, worker_id = NULL, lease_expires_at = NULL
        WHERE id = ${p.add(lease.taskId)} AND worker_id = ${p.add(lease.workerId)} AND lease_token = ${p.add(lease.token)}${notify}`,
      p,
    );
  }
}
