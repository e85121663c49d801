import type {
  AgentGroup,
  ArtifactInput,
  ArtifactKind,
  FindingFilter,
  LearningFilter,
  Lease,
  ReviewerActivity,
  ReviewerActivityFilter,
  RunPatch,
  StageCommit,
  Store,
  StoredArtifact,
  StoredCheckpoint,
  StoreOps,
  TaskFilter,
  TaskTotals,
  WorkerRecord,
} from "../../domain/store.js";
import type {
  Finding,
  Json,
  Learning,
  NewLearning,
  NewTaskEvent,
  Run,
  RunKind,
  RunMeta,
  StageExecution,
  TaskEvent,
  TaskSpend,
} from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { packArtifact } from "../artifact-codec.js";
import {
  CLEAR_AGENT_GROUP,
  LIST_AGENT_GROUPS,
  RECORD_AGENT_GROUP,
  toAgentGroup,
} from "./agent-groups-sql.js";
import { listArtifactsSql, SAVE_ARTIFACT, toArtifact } from "./artifacts-sql.js";
import { openDatabase } from "./connection.js";
import { findingSearchSql, readReviewerActivity, readTaskTotals } from "./dashboard-sql.js";
import { toStoreError } from "./errors.js";
import { INSERT_LEARNING, LEARNING_HIT, learningSeq, learningValues, toLearning } from "./learnings-sql.js";
import {
  eventParams,
  findingParams,
  INSERT_CHECKPOINT,
  INSERT_EVENT,
  INSERT_RUN,
  INSERT_STAGE,
  runPatchSql,
  stageParams,
  UPSERT_FINDING,
} from "./record-sql.js";
import { toCheckpoint, toEvent, toFinding, toRun, toStageExecution, toWorker } from "./rows.js";
import { isCurrentSchema } from "./schema-version.js";
import { SqliteTaskOps } from "./task-ops.js";
import { parseJsonOrText } from "./tolerant.js";

export interface SqliteStoreOptions {
  /** How long a write waits for another process's lock before failing with `store_locked`. */
  busyTimeoutMs?: number;
}

const UPSERT_MARKER =
  "INSERT INTO markers (key, value, created_at) VALUES (@key, @value, @now) ON CONFLICT (key) DO UPDATE SET value = excluded.value";

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating and migrating as needed) the SQLite store at `path`. The file is created
 * owner-only and its folder 0700. Refuses a database migrated by a newer fixpoint.
 */
export async function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): Promise<Store> {
  const busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const db = openDatabase(path, busyTimeoutMs);
  try {
    // The migrations' SQL is loaded only when one is due: opening a current file reads one pragma.
    if (!isCurrentSchema(db, path)) (await import("./migrate.js")).migrate(db, path);
  } catch (e) {
    db.close();
    throw toStoreError(e, path, busyTimeoutMs, "migrating the database");
  }
  return new SqliteStore(db, path, busyTimeoutMs);
}

/**
 * better-sqlite3 is synchronous; every method still returns a Promise so the engine codes
 * against the same contract as a networked store. Every write runs under BEGIN IMMEDIATE: it
 * takes the write lock up front, so a transaction never fails halfway on a lock upgrade.
 */
class SqliteStore extends SqliteTaskOps implements Store {
  readonly kind = "sqlite";

  async transaction<T>(fn: (tx: StoreOps) => Promise<T>, opts: { fence?: Lease } = {}): Promise<T> {
    if (this.inTx) return fn(this);
    while (this.gate !== null) await this.gate;
    let open!: () => void;
    this.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const tx = Object.create(this, { inTx: { value: true } }) as SqliteStore;
    try {
      try {
        this.sql.run("BEGIN IMMEDIATE");
      } catch (e) {
        throw toStoreError(e, this.path, this.busyTimeoutMs, "starting a transaction");
      }
      try {
        if (opts.fence) this.assertLease(opts.fence);
        const result = await fn(tx);
        try {
          this.sql.run("COMMIT");
        } catch (e) {
          throw toStoreError(e, this.path, this.busyTimeoutMs, "committing a transaction");
        }
        this.committed();
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.sql.run("ROLLBACK");
        throw e;
      }
    } finally {
      this.gate = null;
      open();
    }
  }

  // ---- runs

  createRun(taskId: string, kind: RunKind, meta: RunMeta, now: number): Promise<Run> {
    return this.write("creating a run", () => {
      const row = this.sql.get(INSERT_RUN, { taskId, kind, now, meta: JSON.stringify(meta) });
      if (row === undefined) throw new FixpointError("store", `creating a run of ${taskId} returned nothing`);
      return toRun(row);
    });
  }

  getRun(runId: number): Promise<Run | null> {
    return this.op("reading a run", () => {
      const row = this.sql.get("SELECT * FROM runs WHERE id = @id", { id: runId });
      return row === undefined ? null : toRun(row);
    });
  }

  listRuns(taskId: string): Promise<Run[]> {
    return this.op("listing runs", () =>
      this.sql.all("SELECT * FROM runs WHERE task_id = @taskId ORDER BY id", { taskId }).map(toRun),
    );
  }

  updateRun(runId: number, patch: RunPatch, _now: number): Promise<Run> {
    return this.write("updating a run", () => {
      const { set, params } = runPatchSql(patch);
      const sql =
        set === ""
          ? "SELECT * FROM runs WHERE id = @id"
          : `UPDATE runs SET ${set} WHERE id = @id RETURNING *`;
      const row = this.sql.get(sql, { ...params, id: runId });
      if (row === undefined) throw new FixpointError("not_found", `run ${runId} not found`);
      return toRun(row);
    });
  }

  // ---- stages, checkpoints, findings

  prepareStageRecords(): void {
    try {
      // What a stage's commit runs that starting the run did not (INSERT_STAGE's spend trigger
      // updates `tasks`, whose own triggers compile with it: 0.7 ms of the first record).
      for (const sql of [INSERT_STAGE, UPSERT_MARKER, SAVE_ARTIFACT]) this.sql.compile(sql);
    } catch {
      // Compiled on first use instead.
    }
  }

  commitStage(c: StageCommit): Promise<StageExecution | null> {
    const packed = (c.artifacts ?? []).map((a) => ({ a, packed: packArtifact(a.text) }));
    return this.write("committing a stage", () => {
      if (c.fence !== undefined) this.assertLease(c.fence, c.taskId);
      // The record is what was written, with its new id: not read back and decoded (a stage's
      // commit is the engine's hottest write, and no caller needs more than the id).
      const id = c.stage === null ? null : this.sql.insert(INSERT_STAGE, stageParams(c.stage));
      if (c.checkpoint !== null) {
        const state = JSON.stringify(c.checkpoint.state);
        this.sql.run(INSERT_CHECKPOINT, { runId: c.runId, taskId: c.taskId, state, now: c.now });
      }
      this.upsertFindings(c.taskId, c.findings);
      this.insertEvents(c.events, c.now);
      if (c.task !== null) this.patchTaskQuietly(c.taskId, c.task, c.now);
      for (const l of c.learnings?.add ?? []) this.sql.get(INSERT_LEARNING, learningValues(l));
      for (const id of c.learnings?.hits ?? []) this.hitLearning(id, c.now);
      for (const m of c.markers ?? []) this.upsertMarker(m.key, m.value, c.now);
      for (const { a, packed: p } of packed) this.storeArtifact(a, p, c.now);
      return c.stage === null || id === null ? null : { ...c.stage, usage: { ...c.stage.usage }, id };
    });
  }

  /** Throws lease_lost unless `lease` holds the task (and, when given, is a lease on `taskId`). */
  private assertLease(lease: Lease, taskId: string = lease.taskId): void {
    if (lease.taskId !== taskId) {
      throw new FixpointError("lease_lost", `a lease on ${lease.taskId} cannot fence a write to ${taskId}`);
    }
    const row = this.sql.get("SELECT worker_id, lease_token FROM tasks WHERE id = @taskId", {
      taskId: lease.taskId,
    });
    const holder = row?.worker_id ?? null;
    if (holder !== lease.workerId || Number(row?.lease_token) !== lease.token) {
      throw new FixpointError(
        "lease_lost",
        `task ${lease.taskId} is no longer held by this worker (${holder === null ? "released" : `now ${holder}`}); nothing was recorded`,
      );
    }
  }

  listStageExecutions(taskId: string, runId?: number): Promise<StageExecution[]> {
    return this.op("listing stages", () => {
      const rows =
        runId === undefined
          ? this.sql.all("SELECT * FROM stage_executions WHERE task_id = @taskId ORDER BY id", { taskId })
          : this.sql.all(
              "SELECT * FROM stage_executions WHERE task_id = @taskId AND run_id = @runId ORDER BY id",
              { taskId, runId },
            );
      return rows.map(toStageExecution);
    });
  }

  spendOutsideRun(taskId: string, runId: number): Promise<TaskSpend> {
    return this.op("summing a task's spend", () => {
      const row = this.sql.get(
        `SELECT COALESCE(SUM(cost_usd), 0) AS cost_usd,
          COALESCE(SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens), 0) AS tokens
         FROM stage_executions WHERE task_id = @taskId AND run_id <> @runId`,
        { taskId, runId },
      );
      return { costUsd: Number(row?.cost_usd ?? 0), tokens: Number(row?.tokens ?? 0) };
    });
  }

  getCheckpoint(runId: number): Promise<StoredCheckpoint | null> {
    return this.op("reading a checkpoint", () => {
      const row = this.sql.get("SELECT * FROM checkpoints WHERE run_id = @runId", { runId });
      return row === undefined ? null : toCheckpoint(row);
    });
  }

  private upsertFindings(taskId: string, findings: Finding[]): void {
    for (const f of findings) this.sql.run(UPSERT_FINDING, findingParams(taskId, f));
  }

  listFindings(taskId: string): Promise<Finding[]> {
    return this.op("listing findings", () =>
      // rowid order is first-insertion order (an upsert keeps the row), so F-2 stays before F-10.
      this.sql
        .all("SELECT * FROM findings WHERE task_id = @taskId ORDER BY rowid", { taskId })
        .map(toFinding),
    );
  }

  saveFindings(taskId: string, findings: Finding[], events: NewTaskEvent[], now: number): Promise<void> {
    return this.write("saving findings", () => {
      this.upsertFindings(taskId, findings);
      this.insertEvents(events, now);
    });
  }

  // ---- events

  private insertEvents(events: NewTaskEvent[], now: number): void {
    for (const e of events) this.sql.run(INSERT_EVENT, eventParams(e, now));
  }

  appendEvents(events: NewTaskEvent[], now: number): Promise<void> {
    return this.write("appending events", () => this.insertEvents(events, now));
  }

  listEvents(taskId: string, afterId?: number): Promise<TaskEvent[]> {
    return this.op("listing events", () =>
      this.sql
        .all("SELECT * FROM events WHERE task_id = @taskId AND id > @afterId ORDER BY id", {
          taskId,
          afterId: afterId ?? 0,
        })
        .map(toEvent),
    );
  }

  listEventsAfter(afterId: number, limit: number): Promise<TaskEvent[]> {
    return this.op("listing events", () =>
      this.sql
        .all("SELECT * FROM events WHERE id > @afterId ORDER BY id LIMIT @limit", {
          afterId,
          limit: Math.max(0, Math.floor(limit)),
        })
        .map(toEvent),
    );
  }

  lastEventId(): Promise<number> {
    return this.op("listing events", () => Number(this.sql.get("SELECT MAX(id) AS id FROM events")?.id ?? 0));
  }

  // ---- dashboard reads

  searchFindings(filter: FindingFilter): Promise<Finding[]> {
    return this.op("searching findings", () => {
      const { sql, params } = findingSearchSql(filter);
      return this.sql.all(sql, params).map(toFinding);
    });
  }

  taskTotals(filter: TaskFilter = {}): Promise<TaskTotals> {
    return this.op("summing tasks", () => readTaskTotals(this.sql, filter));
  }

  listReviewerActivity(filter: ReviewerActivityFilter): Promise<ReviewerActivity> {
    return this.op("reading reviewer activity", () => readReviewerActivity(this.sql, filter));
  }

  // ---- markers

  getMarker(key: string): Promise<Json | null> {
    return this.op("reading a marker", () => {
      const row = this.sql.get("SELECT value FROM markers WHERE key = @key", { key });
      return row === undefined ? null : parseJsonOrText(row.value);
    });
  }

  getMarkers(keys: readonly string[]): Promise<Map<string, Json>> {
    return this.op("reading markers", () => {
      const out = new Map<string, Json>();
      if (keys.length === 0) return out;
      const sql = "SELECT key, value FROM markers WHERE key IN (SELECT value FROM json_each(@keys))";
      for (const row of this.sql.all(sql, { keys: JSON.stringify(keys) })) {
        out.set(String(row.key), parseJsonOrText(row.value));
      }
      return out;
    });
  }

  setMarkerOnce(key: string, value: Json, now: number): Promise<boolean> {
    return this.write("setting a marker", () => {
      const sql =
        "INSERT INTO markers (key, value, created_at) VALUES (@key, @value, @now) ON CONFLICT (key) DO NOTHING";
      return this.sql.run(sql, { key, value: JSON.stringify(value), now }) === 1;
    });
  }

  setMarker(key: string, value: Json, now: number): Promise<void> {
    return this.write("setting a marker", () => this.upsertMarker(key, value, now));
  }

  private upsertMarker(key: string, value: Json, now: number): void {
    this.sql.run(UPSERT_MARKER, { key, value: JSON.stringify(value), now });
  }

  // ---- workers

  saveWorker(w: WorkerRecord): Promise<void> {
    return this.write("recording a worker", () => {
      this.sql.run(
        `INSERT INTO workers (id, host, pid, concurrency, started_at, heartbeat_at)
         VALUES (@id, @host, @pid, @concurrency, @startedAt, @heartbeatAt)
         ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, concurrency = excluded.concurrency,
           started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
        { ...w },
      );
    });
  }

  removeWorker(workerId: string): Promise<void> {
    return this.write("removing a worker", () => {
      this.sql.run("DELETE FROM workers WHERE id = @id", { id: workerId });
    });
  }

  listWorkers(): Promise<WorkerRecord[]> {
    return this.op("listing workers", () =>
      this.sql.all("SELECT * FROM workers ORDER BY started_at, id").map(toWorker),
    );
  }

  // ---- agent process groups

  recordAgentGroup(g: AgentGroup): Promise<void> {
    return this.write("recording an agent's process group", () => {
      this.sql.run(RECORD_AGENT_GROUP, { ...g });
    });
  }

  clearAgentGroup(taskId: string, pgid: number, host: string): Promise<void> {
    return this.write("clearing an agent's process group", () => {
      this.sql.run(CLEAR_AGENT_GROUP, { taskId, pgid, host });
    });
  }

  listAgentGroups(taskId: string): Promise<AgentGroup[]> {
    return this.op("listing agent process groups", () =>
      this.sql.all(LIST_AGENT_GROUPS, { taskId }).map(toAgentGroup),
    );
  }

  // ---- artifacts

  saveArtifact(a: ArtifactInput, now: number): Promise<void> {
    const packed = packArtifact(a.text);
    return this.write("storing an artifact", () => this.storeArtifact(a, packed, now));
  }

  private storeArtifact(a: ArtifactInput, packed: ReturnType<typeof packArtifact>, now: number): void {
    this.sql.run(SAVE_ARTIFACT, {
      taskId: a.taskId,
      kind: a.kind,
      name: a.name,
      data: packed.data,
      size: packed.size,
      truncated: packed.truncated ? 1 : 0,
      now,
    });
  }

  listArtifacts(taskId: string, kind?: ArtifactKind, names?: readonly string[]): Promise<StoredArtifact[]> {
    const { sql, params } = listArtifactsSql(taskId, kind, names);
    return this.op("listing artifacts", () => this.sql.all(sql, params).map(toArtifact));
  }

  artifactNames(taskId: string, kind: ArtifactKind): Promise<string[]> {
    // The key's index holds (task, kind, name): the rows and their text are not read.
    return this.op("listing artifact names", () =>
      this.sql
        .all("SELECT name FROM artifacts WHERE task_id = @taskId AND kind = @kind ORDER BY name", {
          taskId,
          kind,
        })
        .map((r) => String(r.name)),
    );
  }

  // ---- learnings

  addLearning(input: NewLearning): Promise<Learning> {
    return this.write("recording a learning", () => {
      const row = this.sql.get(INSERT_LEARNING, learningValues(input));
      if (row === undefined) throw new FixpointError("store", "recording a learning returned nothing");
      return toLearning(row);
    });
  }

  listLearnings(filter: LearningFilter = {}): Promise<Learning[]> {
    return this.op("listing learnings", () => {
      const where: string[] = [];
      if (filter.repo !== undefined) where.push("repo = @repo");
      if (!filter.includeRemoved) where.push("removed_at IS NULL");
      const sql = `SELECT * FROM learnings ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq`;
      return this.sql.all(sql, filter.repo === undefined ? {} : { repo: filter.repo }).map(toLearning);
    });
  }

  getLearning(idOrNumber: string): Promise<Learning | null> {
    return this.op("reading a learning", () => {
      const seq = learningSeq(idOrNumber);
      const row =
        seq === null ? undefined : this.sql.get("SELECT * FROM learnings WHERE seq = @seq", { seq });
      return row === undefined ? null : toLearning(row);
    });
  }

  removeLearning(idOrNumber: string, now: number): Promise<Learning | null> {
    return this.write("removing a learning", () => {
      const seq = learningSeq(idOrNumber);
      if (seq === null) return null;
      const row = this.sql.get(
        "UPDATE learnings SET removed_at = @now WHERE seq = @seq AND removed_at IS NULL RETURNING *",
        { seq, now },
      );
      return row === undefined ? null : toLearning(row);
    });
  }

  recordLearningHit(id: string, now: number): Promise<void> {
    return this.write("counting a learning's hit", () => this.hitLearning(id, now));
  }

  private hitLearning(id: string, now: number): void {
    const seq = learningSeq(id);
    if (seq !== null) this.sql.run(LEARNING_HIT, { seq, now });
  }

  async close(): Promise<void> {
    // The thread's connection first: the last one to close removes the WAL.
    const thread = this.checkpoints.thread;
    this.checkpoints.thread = null;
    await thread?.stop();
    if (this.db.open) this.db.close();
  }
}
