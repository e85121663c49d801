import type pg from "pg";
import type {
  FindingFilter,
  Lease,
  ReviewerActivity,
  ReviewerActivityFilter,
  RunPatch,
  StageCommit,
  Store,
  StoredCheckpoint,
  StoreOps,
  TaskFilter,
  TaskTotals,
  WorkerRecord,
} from "../../domain/store.js";
import type {
  Finding,
  NewTaskEvent,
  Run,
  RunKind,
  RunMeta,
  StageExecution,
  TaskEvent,
  TaskSpend,
  TaskStatus,
} from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import {
  toCheckpoint,
  toEvent,
  toFinding,
  toReviewerFinding,
  toReviewStage,
  toRun,
  toStageExecution,
  toWorker,
} from "../sqlite/rows.js";
import { openPool, type PoolOptions } from "./connection.js";
import { toPgStoreError } from "./errors.js";
import { WorkListener } from "./listener.js";
import { migratePg } from "./migrate.js";
import { PgRecordOps } from "./record-ops.js";
import {
  findingSearchSql,
  Params,
  reviewerActivitySql,
  taskTotalsSql,
  UPSERT_FINDING_HEAD,
  UPSERT_FINDING_TAIL,
  withValues,
} from "./sql.js";

export interface PostgresStoreOptions {
  /**
   * The clock leases are measured on. "database" (the default): a claim's lease ends at the
   * server's `now()` + leaseMs and expiry is judged by the server's clock, so workers on machines
   * whose clocks disagree never steal a live lease; the `now` a caller passes to claimTask and
   * heartbeat is then only used for `updated_at`. "caller": leases use the caller's `now`, like the
   * SQLite store (the contract suite uses it to control time without sleeping).
   */
  leaseClock?: "database" | "caller";
  pool?: PoolOptions;
}

/**
 * Opens (creating the schema or migrating as needed) the PostgreSQL store at `url`. Refuses a
 * database migrated by a newer fixpoint.
 */
export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<Store> {
  const pool = await openPool(url, opts.pool);
  try {
    await migratePg(pool, url);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw toPgStoreError(e, url, "migrating the database");
  }
  return new PostgresStore(pool, null, { url, leaseClock: opts.leaseClock ?? "database" });
}

/**
 * The store's reads and writes over either the pool (each call its own statement or
 * transaction) or one client inside `transaction` (every call joins it).
 */
class PgOps extends PgRecordOps implements StoreOps {
  protected joined(client: pg.PoolClient): this {
    return new PgOps(this.pool, client, this.settings) as this;
  }

  // ---- runs

  async createRun(taskId: string, kind: RunKind, meta: RunMeta, now: number): Promise<Run> {
    const p = new Params();
    const sql = `INSERT INTO runs (task_id, kind, status, started_at, meta)
      VALUES (${p.add(taskId)}, ${p.add(kind)}, 'running', ${p.add(now)}, ${p.json(meta)}) RETURNING *`;
    const row = (await this.rows("creating a run", sql, p, false))[0];
    if (row === undefined) throw new FixpointError("store", `creating a run of ${taskId} returned nothing`);
    return toRun(row);
  }

  async getRun(runId: number): Promise<Run | null> {
    const row = (await this.rows("reading a run", "SELECT * FROM runs WHERE id = $1", withValues(runId)))[0];
    return row === undefined ? null : toRun(row);
  }

  async listRuns(taskId: string): Promise<Run[]> {
    return (
      await this.rows("listing runs", "SELECT * FROM runs WHERE task_id = $1 ORDER BY id", withValues(taskId))
    ).map(toRun);
  }

  async updateRun(runId: number, patch: RunPatch, _now: number): Promise<Run> {
    const p = new Params();
    const sets: string[] = [];
    if (patch.status !== undefined) sets.push(`status = ${p.add(patch.status)}`);
    if (patch.finalVerdict !== undefined) sets.push(`final_verdict = ${p.add(patch.finalVerdict)}`);
    if (patch.reason !== undefined) sets.push(`reason = ${p.add(patch.reason)}`);
    if (patch.endedAt !== undefined) sets.push(`ended_at = ${p.add(patch.endedAt)}`);
    if (patch.meta !== undefined) sets.push(`meta = ${p.json(patch.meta)}`);
    const where = `WHERE id = ${p.add(runId)}`;
    const sql =
      sets.length === 0
        ? `SELECT * FROM runs ${where}`
        : `UPDATE runs SET ${sets.join(", ")} ${where} RETURNING *`;
    const row = (await this.rows("updating a run", sql, p, sets.length === 0))[0];
    if (row === undefined) throw new FixpointError("not_found", `run ${runId} not found`);
    return toRun(row);
  }

  // ---- stages, checkpoints, findings

  commitStage(c: StageCommit): Promise<StageExecution | null> {
    return this.atomic("committing a stage", async (ops) => {
      if (c.fence !== undefined) {
        if (c.fence.taskId !== c.taskId) {
          throw new FixpointError(
            "lease_lost",
            `a lease on ${c.fence.taskId} cannot fence a write to ${c.taskId}`,
          );
        }
        await ops.assertLease(c.fence);
      }
      let saved: StageExecution | null = null;
      if (c.stage !== null) {
        saved = await ops.insertStage(c.stage);
        const s = c.stage;
        const p = new Params();
        const tokens = s.usage.input + s.usage.output + s.usage.cacheRead + s.usage.cacheWrite;
        await ops.count(
          "committing a stage",
          `UPDATE tasks SET cost_usd = cost_usd + ${p.add(s.costUsd)}, tokens = tokens + ${p.add(tokens)} WHERE id = ${p.add(s.taskId)}`,
          p,
        );
      }
      if (c.checkpoint !== null) {
        const p = new Params();
        const runId = p.add(c.runId);
        await ops.count(
          "committing a stage",
          `INSERT INTO checkpoints (run_id, seq, task_id, state, created_at)
           VALUES (${runId}, (SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoints WHERE run_id = ${runId}),
             ${p.add(c.taskId)}, ${p.json(c.checkpoint.state)}, ${p.add(c.now)})`,
          p,
        );
      }
      await ops.upsertFindings(c.taskId, c.findings);
      await ops.insertEvents(c.events, c.now);
      if (c.task !== null) await ops.patchTask(c.taskId, c.task, c.now);
      for (const l of c.learnings?.add ?? []) await ops.addLearning(l);
      for (const id of c.learnings?.hits ?? []) await ops.recordLearningHit(id, c.now);
      for (const m of c.markers ?? []) await ops.setMarker(m.key, m.value, c.now);
      for (const a of c.artifacts ?? []) await ops.saveArtifact(a, c.now);
      return saved;
    });
  }

  private async insertStage(s: StageCommit["stage"] & object): Promise<StageExecution> {
    const p = new Params();
    const v = [
      p.add(s.runId),
      p.add(s.taskId),
      p.add(s.stageId),
      p.add(s.kind),
      p.add(s.visit),
      p.add(s.cycle),
      p.add(s.outcome),
      p.add(s.failureClass),
      p.add(s.failureReason),
      p.add(s.verdict),
      p.add(s.startedAt),
      p.add(s.endedAt),
      p.add(s.usage.input),
      p.add(s.usage.output),
      p.add(s.usage.cacheRead),
      p.add(s.usage.cacheWrite),
      p.add(s.costUsd),
      p.add(s.headBefore),
      p.add(s.headAfter),
      p.add(s.sessionId),
      p.add(s.summary),
      p.add(s.attempts),
    ];
    const sql = `INSERT INTO stage_executions (run_id, task_id, stage_id, kind, visit, cycle, outcome, failure_class,
      failure_reason, verdict, started_at, ended_at, input_tokens, output_tokens, cache_read_tokens,
      cache_write_tokens, cost_usd, head_before, head_after, session_id, summary, attempts)
      VALUES (${v.join(", ")}) RETURNING *`;
    const row = (await this.rows("committing a stage", sql, p, false))[0];
    if (row === undefined)
      throw new FixpointError("store", `recording a stage of ${s.taskId} returned nothing`);
    return toStageExecution(row);
  }

  /** Locks the task row, so no claim can take it over until this transaction ends. */
  async assertLease(lease: Lease): Promise<void> {
    const row = (
      await this.rows(
        "checking a lease",
        "SELECT worker_id, lease_token FROM tasks WHERE id = $1 FOR UPDATE",
        withValues(lease.taskId),
        false,
      )
    )[0];
    const holder = typeof row?.worker_id === "string" ? row.worker_id : null;
    if (holder !== lease.workerId || Number(row?.lease_token) !== lease.token) {
      throw new FixpointError(
        "lease_lost",
        `task ${lease.taskId} is no longer held by this worker (${holder === null ? "released" : `now ${holder}`}); nothing was recorded`,
      );
    }
  }

  async listStageExecutions(taskId: string, runId?: number): Promise<StageExecution[]> {
    const p = new Params();
    const sql =
      runId === undefined
        ? `SELECT * FROM stage_executions WHERE task_id = ${p.add(taskId)} ORDER BY id`
        : `SELECT * FROM stage_executions WHERE task_id = ${p.add(taskId)} AND run_id = ${p.add(runId)} ORDER BY id`;
    return (await this.rows("listing stages", sql, p)).map(toStageExecution);
  }

  async spendOutsideRun(taskId: string, runId: number): Promise<TaskSpend> {
    const sql = `SELECT COALESCE(SUM(cost_usd), 0) AS cost_usd,
        COALESCE(SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens), 0) AS tokens
      FROM stage_executions WHERE task_id = $1 AND run_id <> $2`;
    const row = (await this.rows("summing a task's spend", sql, withValues(taskId, runId)))[0];
    return { costUsd: Number(row?.cost_usd ?? 0), tokens: Number(row?.tokens ?? 0) };
  }

  async getCheckpoint(runId: number): Promise<StoredCheckpoint | null> {
    const sql = "SELECT * FROM checkpoints WHERE run_id = $1 ORDER BY seq DESC LIMIT 1";
    const row = (await this.rows("reading a checkpoint", sql, withValues(runId)))[0];
    return row === undefined ? null : toCheckpoint(row);
  }

  private async upsertFindings(taskId: string, findings: Finding[]): Promise<void> {
    for (const f of findings) {
      const p = new Params();
      const v = [
        p.add(taskId),
        p.add(f.id),
        p.add(f.fingerprint),
        p.add(f.severity),
        p.add(f.category),
        p.add(f.title),
        p.add(f.body),
        p.add(f.file),
        p.add(f.lineStart),
        p.add(f.lineEnd),
        p.add(f.suggestedFix),
        p.json(f.sources),
        p.add(f.status),
        p.add(f.firstCycle),
        p.add(f.lastCycle),
        p.add(f.timesReopened),
        p.json(f.attempts),
        p.add(f.note),
        p.add(f.createdAt),
        p.add(f.updatedAt),
      ];
      await this.count(
        "saving findings",
        `${UPSERT_FINDING_HEAD} VALUES (${v.join(", ")}) ${UPSERT_FINDING_TAIL}`,
        p,
      );
    }
  }

  async listFindings(taskId: string): Promise<Finding[]> {
    // `ord` is first-insertion order (an upsert keeps it), so F-2 stays before F-10.
    const sql = "SELECT * FROM findings WHERE task_id = $1 ORDER BY ord";
    return (await this.rows("listing findings", sql, withValues(taskId))).map(toFinding);
  }

  saveFindings(taskId: string, findings: Finding[], events: NewTaskEvent[], now: number): Promise<void> {
    return this.atomic("saving findings", async (ops) => {
      await ops.upsertFindings(taskId, findings);
      await ops.insertEvents(events, now);
    });
  }

  // ---- events

  private async insertEvents(events: NewTaskEvent[], now: number): Promise<void> {
    if (events.length === 0) return;
    const p = new Params();
    const rows = events.map(
      (e) =>
        `(${p.add(e.taskId)}, ${p.add(e.runId)}, ${p.add(e.ts ?? now)}, ${p.add(e.type)}, ${p.json(e.data)})`,
    );
    // One statement: identities are assigned in VALUES order, so append order is kept.
    await this.count(
      "appending events",
      `INSERT INTO events (task_id, run_id, ts, type, data) VALUES ${rows.join(", ")}`,
      p,
    );
  }

  appendEvents(events: NewTaskEvent[], now: number): Promise<void> {
    return this.insertEvents(events, now);
  }

  async listEvents(taskId: string, afterId?: number): Promise<TaskEvent[]> {
    const p = new Params();
    const sql = `SELECT * FROM events WHERE task_id = ${p.add(taskId)} AND id > ${p.add(afterId ?? 0)} ORDER BY id`;
    return (await this.rows("listing events", sql, p)).map(toEvent);
  }

  async listEventsAfter(afterId: number, limit: number): Promise<TaskEvent[]> {
    const p = new Params();
    const sql = `SELECT * FROM events WHERE id > ${p.add(afterId)} ORDER BY id LIMIT ${p.add(Math.max(0, Math.floor(limit)))}`;
    return (await this.rows("listing events", sql, p)).map(toEvent);
  }

  async lastEventId(): Promise<number> {
    const rows = await this.rows(
      "listing events",
      "SELECT COALESCE(MAX(id), 0) AS id FROM events",
      new Params(),
    );
    return Number(rows[0]?.id ?? 0);
  }

  // ---- dashboard reads

  async searchFindings(filter: FindingFilter): Promise<Finding[]> {
    const { sql, params } = findingSearchSql(filter);
    return (await this.rows("searching findings", sql, params)).map(toFinding);
  }

  async taskTotals(filter: TaskFilter = {}): Promise<TaskTotals> {
    const { sql, params } = taskTotalsSql(filter);
    const rows = await this.rows("summing tasks", sql, params);
    const whole = rows.find((r) => Number(r.whole) === 1);
    const byStatus: TaskTotals["byStatus"] = {};
    for (const r of rows) if (Number(r.whole) === 0) byStatus[String(r.status) as TaskStatus] = Number(r.n);
    return {
      tasks: Number(whole?.n ?? 0),
      costUsd: Number(whole?.cost_usd ?? 0),
      tokens: Number(whole?.tokens ?? 0),
      agentMs: Number(whole?.agent_ms ?? 0),
      byStatus,
    };
  }

  async listReviewerActivity(filter: ReviewerActivityFilter): Promise<ReviewerActivity> {
    const { findings, reviews, params } = reviewerActivitySql(filter);
    return {
      findings: (await this.rows("reading reviewer activity", findings, params)).map(toReviewerFinding),
      reviews: (await this.rows("reading reviewer activity", reviews, params)).map(toReviewStage),
    };
  }
}

/**
 * The PostgreSQL store. Unlike SQLite's single connection, calls from elsewhere while a
 * `transaction` is open run on other pooled connections, so they neither wait for it nor join it.
 */
class PostgresStore extends PgOps implements Store {
  readonly kind = "postgres";
  private listener: WorkListener | null = null;

  async transaction<T>(fn: (tx: StoreOps) => Promise<T>, opts: { fence?: Lease } = {}): Promise<T> {
    return this.atomic("running a transaction", async (ops) => {
      if (opts.fence) await ops.assertLease(opts.fence);
      return fn(ops);
    });
  }

  /**
   * Resolves when a task may have become claimable (a NOTIFY from the database: one waiter of
   * this process per notification), after `timeoutMs` at the latest (the slow poll), or at once
   * when `signal` aborts.
   */
  waitForWork(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    this.listener ??= new WorkListener(this.settings.url);
    return this.listener.wait(timeoutMs, signal);
  }

  async saveWorker(w: WorkerRecord): Promise<void> {
    const p = new Params();
    const sql = `INSERT INTO workers (id, host, pid, concurrency, started_at, heartbeat_at)
      VALUES (${p.add(w.id)}, ${p.add(w.host)}, ${p.add(w.pid)}, ${p.add(w.concurrency)}, ${p.add(w.startedAt)}, ${p.add(w.heartbeatAt)})
      ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, concurrency = excluded.concurrency,
        started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`;
    await this.count("recording a worker", sql, p);
  }

  async removeWorker(workerId: string): Promise<void> {
    await this.count("removing a worker", "DELETE FROM workers WHERE id = $1", withValues(workerId));
  }

  async listWorkers(): Promise<WorkerRecord[]> {
    return (
      await this.rows("listing workers", "SELECT * FROM workers ORDER BY started_at, id", new Params())
    ).map(toWorker);
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = null;
    await this.pool.end().catch(() => undefined);
  }
}
