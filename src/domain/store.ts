import type {
  FinalVerdict,
  Finding,
  FindingStatus,
  Json,
  JsonObject,
  Learning,
  NewLearning,
  NewStageExecution,
  NewTask,
  NewTaskEvent,
  Run,
  RunKind,
  RunMeta,
  Severity,
  StageExecution,
  Task,
  TaskEvent,
  TaskMeta,
  TaskSpend,
  TaskStatus,
  TaskSummary,
} from "./types.js";

/**
 * The durable state of fixpoint. One contract, several implementations (SQLite now, PostgreSQL
 * later); the same contract test suite runs against each. Every method is async so a networked
 * implementation fits; nothing dialect-specific leaks through.
 *
 * Timestamps are epoch milliseconds supplied by the caller's clock, so tests control time. One
 * exception: the PostgreSQL store measures leases on the database server's clock by default
 * (workers on several machines must agree on when a lease ends); the `now` passed to
 * claimTask/heartbeat then only sets `updatedAt`, and `Task.leaseExpiresAt` is server time.
 */
export interface Store extends StoreOps {
  readonly kind: "sqlite" | "postgres";

  /**
   * Runs `fn` in ONE transaction: every call made through `tx` inside it commits together or not
   * at all. With `fence`, the transaction first checks that the lease still holds the task and
   * fails with FixpointError("lease_lost") — writing nothing — when it does not.
   *
   * Contract: `fn` must use only `tx` (calling the store itself inside `fn` would wait for the
   * transaction to end: a deadlock). `fn` must not do slow I/O (git, agents, network): do that
   * before, and make the store write last. Calls on the store from elsewhere while a
   * transaction is open wait for it (SQLite serialises them on its one connection).
   */
  transaction<T>(fn: (tx: StoreOps) => Promise<T>, opts?: { fence?: Lease }): Promise<T>;

  /**
   * For an idle worker: resolves when a task may have become claimable (PostgreSQL: a
   * LISTEN/NOTIFY wake-up when a task is queued or released), after `timeoutMs` at the latest
   * (the slow poll), or at once when `signal` aborts. Optional: a store without it (SQLite, one
   * machine) is polled by the caller every `timeoutMs`.
   */
  waitForWork?(timeoutMs: number, signal?: AbortSignal): Promise<void>;

  /**
   * Optional, for a run about to record stages: prepares what a stage's commit runs (SQLite:
   * compiles its statements, triggers included), so the first stage's record costs what the
   * later ones do. Synchronous and never throws; the engine calls it while the run's first child
   * process runs, when the worker would otherwise wait.
   */
  prepareStageRecords?(): void;

  // ---- the workers registry behind `fixpoint workers`
  /** Records or refreshes a worker (upsert by id, every field written). */
  saveWorker(worker: WorkerRecord): Promise<void>;
  /** Forgets a worker that stopped; a no-op when absent. */
  removeWorker(workerId: string): Promise<void>;
  /** Every recorded worker, oldest first; a crashed one stays until its heartbeat is judged stale. */
  listWorkers(): Promise<WorkerRecord[]>;

  close(): Promise<void>;
}

/** One `fixpoint work` process as the workers registry knows it. Times: the worker's clock. */
export interface WorkerRecord {
  /** `host:pid:random`, the same id its claims carry as `Task.workerId`. */
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  startedAt: number;
  heartbeatAt: number;
}

/**
 * A worker's hold on a task, returned by `claimTask` (`Task.workerId` + `Task.leaseToken`). The
 * token is a generation number that grows on every claim of the task, so a worker whose lease
 * expired and was taken over holds a stale token: every write it makes carrying that lease is
 * refused with FixpointError("lease_lost") and writes nothing.
 */
export interface Lease {
  taskId: string;
  workerId: string;
  token: number;
}

/** The store's reads and writes, usable inside and outside a transaction. */
export interface StoreOps {
  // ---- tasks
  /** Creates a task; assigns `t-<seq>` unless `id` is given. Rejects a duplicate id with `store`. */
  createTask(input: NewTask, now: number): Promise<Task>;
  /** Creates the task unless one with `input.id` exists; returns it either way (idempotent). */
  createTaskOnce(input: NewTask & { id: string }, now: number): Promise<{ task: Task; created: boolean }>;
  /** Accepts `t-29`, `29`, or any literal id. Null when absent. */
  getTask(idOrNumber: string): Promise<Task | null>;
  listTasks(filter?: TaskFilter): Promise<Task[]>;
  /** Like listTasks without prompts and metadata: what `status` needs, fast for 10,000 tasks. */
  listTaskSummaries(filter?: TaskFilter): Promise<TaskSummary[]>;
  /**
   * One page of listTaskSummaries (same filter and order, `limit` tasks at most) already written
   * as the task objects of `status --json` (docs/cli.md, keys in that order), comma-separated, by
   * the database itself: 100,000 tasks stream without materialising a row object per task. The
   * JSON values equal those of the CLI's `taskJson` (numbers may be spelt differently: `1e-7`).
   */
  listTaskJson(filter: TaskFilter & { limit: number }): Promise<TaskJsonPage>;
  /**
   * One page of `fixpoint status`'s table (listTaskSummaries' filter and order), each task's line
   * as statusLine writes it: as the store recorded it when it wrote the task (SQLite: migration
   * 018), or written from the page's columns without decoding them (PostgreSQL:
   * task-line-page.ts). Optional: a store that leaves it out has the CLI format
   * listTaskSummaries itself.
   */
  listTaskLines?(query: TaskLineQuery): Promise<TaskLinePage>;
  countTasks(filter?: TaskFilter): Promise<number>;
  updateTask(id: string, patch: TaskPatch, now: number): Promise<Task>;

  /**
   * Atomically claims one runnable task for `workerId`: a queued one, or a running one whose
   * lease expired before `now` (its worker died). Sets status running, the worker and the lease.
   * Two workers never get the same task. Highest priority first, then oldest (lowest seq). Null when nothing is runnable.
   */
  claimTask(claim: ClaimRequest): Promise<Task | null>;
  /**
   * Extends the lease to `now + leaseMs`; false when `lease` no longer holds the task (taken
   * over — a different worker or a newer token — released, or cancelled). Checks worker AND
   * token, so a worker whose lease expired and that re-claimed nothing can never revive it.
   */
  heartbeat(lease: Lease, leaseMs: number, now: number): Promise<boolean>;
  /**
   * Clears worker and lease and applies the final patch in the same statement — only while
   * `lease` (worker and token) still holds the task; otherwise a no-op that writes nothing.
   */
  releaseTask(lease: Lease, patch: TaskPatch, now: number): Promise<void>;
  /**
   * What a worker does between two tasks, as one write (one round trip on a server store):
   * `releaseTask(done.lease, done.patch)`, fenced the same way (a no-op when the lease no longer
   * holds), then `claimTask(claim)`, which never returns the task just released.
   */
  releaseAndClaim(done: { lease: Lease; patch: TaskPatch }, claim: ClaimRequest): Promise<Task | null>;

  // ---- runs
  createRun(taskId: string, kind: RunKind, meta: RunMeta, now: number): Promise<Run>;
  getRun(runId: number): Promise<Run | null>;
  listRuns(taskId: string): Promise<Run[]>;
  updateRun(runId: number, patch: RunPatch, now: number): Promise<Run>;

  // ---- stages, checkpoints, findings
  /**
   * The engine's one write per stage, in ONE transaction: the stage record, the new checkpoint
   * (context and next stage), the registry changes, events, and task fields. A crash leaves
   * either all of it or none of it.
   */
  commitStage(commit: StageCommit): Promise<StageExecution | null>;
  listStageExecutions(taskId: string, runId?: number): Promise<StageExecution[]>;
  /**
   * What the task's stages outside run `runId` cost (its other runs, for the budget): one sum in
   * the store, so resuming a run of thousands of stages does not read them all.
   */
  spendOutsideRun(taskId: string, runId: number): Promise<TaskSpend>;
  /**
   * The latest checkpoint of a run as stored (raw JSON parsed); null when none. When the stored
   * text is not valid JSON, `state` is that raw text (a string), so the engine can report a
   * corrupted checkpoint instead of silently starting over.
   */
  getCheckpoint(runId: number): Promise<StoredCheckpoint | null>;

  listFindings(taskId: string): Promise<Finding[]>;
  /** Upserts findings outside a stage (e.g. `edit`, PR ingestion); emits the given events too. */
  saveFindings(taskId: string, findings: Finding[], events: NewTaskEvent[], now: number): Promise<void>;

  // ---- events
  appendEvents(events: NewTaskEvent[], now: number): Promise<void>;
  /** Events of a task in append order, optionally only those with id > afterId. */
  listEvents(taskId: string, afterId?: number): Promise<TaskEvent[]>;
  /**
   * Events of every task with id > afterId, in append order, at most `limit`: the dashboard's live
   * feed polls it with the last id it sent (ids only grow, so nothing is missed or sent twice).
   */
  listEventsAfter(afterId: number, limit: number): Promise<TaskEvent[]>;
  /** The id of the newest event of any task; 0 when there is none. Where a live feed starts. */
  lastEventId(): Promise<number>;

  // ---- dashboard reads (paged; fast at 100,000 tasks)
  /** Findings across tasks, newest first, filtered and paged (see FindingFilter). */
  searchFindings(filter: FindingFilter): Promise<Finding[]>;
  /** What the tasks a filter selects cost: their count, spend and agent time (`limit` ignored). */
  taskTotals(filter?: TaskFilter): Promise<TaskTotals>;
  /**
   * What `fixpoint reviewers` counts, of one task or of every task, in two reads whatever their
   * number (a read per task took 1.9 s at 100,000 tasks): the findings created at or after
   * `since`, and the review stages started at or after it.
   */
  listReviewerActivity(filter: ReviewerActivityFilter): Promise<ReviewerActivity>;

  // ---- agent process groups (so a takeover can kill an agent its dead worker left running)
  /** Records a running agent's process group; recording the same (task, pgid, host) again replaces it. */
  recordAgentGroup(group: AgentGroup): Promise<void>;
  /** Forgets a group (its agent ended, or it was killed). Absent groups are ignored. */
  clearAgentGroup(taskId: string, pgid: number, host: string): Promise<void>;
  /** The task's recorded groups, oldest first. */
  listAgentGroups(taskId: string): Promise<AgentGroup[]>;

  // ---- artifacts (agent transcripts, review files), so `show` and `logs` work from any machine
  /**
   * Stores one artifact of a task, replacing the one with the same (task, kind, name). The store
   * keeps at most ARTIFACT_MAX_BYTES of its text (the start and the end, with a line saying what
   * was cut) and compresses it.
   */
  saveArtifact(artifact: ArtifactInput, now: number): Promise<void>;
  /**
   * A task's artifacts (of `kind` when given; only those named in `names` when given), by kind
   * then name, their text as stored.
   */
  listArtifacts(taskId: string, kind?: ArtifactKind, names?: readonly string[]): Promise<StoredArtifact[]>;
  /** The names of a task's artifacts of `kind`, in name order: no text read. */
  artifactNames(taskId: string, kind: ArtifactKind): Promise<string[]>;

  // ---- key/value for idempotency markers (PR replies, filed issues, watch state)
  getMarker(key: string): Promise<Json | null>;
  /** The markers of `keys` that are set, by key, in one read (a resumed run's counter pages). */
  getMarkers(keys: readonly string[]): Promise<Map<string, Json>>;
  /** Sets the marker only if absent; true when this call set it. */
  setMarkerOnce(key: string, value: Json, now: number): Promise<boolean>;
  setMarker(key: string, value: Json, now: number): Promise<void>;

  // ---- learnings (issue 16): what reviewers are told and what dismisses a repeated finding
  /** Records a learning; assigns `L-<n>` (creation order in this store), hits 0. */
  addLearning(input: NewLearning): Promise<Learning>;
  /** Learnings oldest first; removed ones only with `includeRemoved`. */
  listLearnings(filter?: LearningFilter): Promise<Learning[]>;
  /** Accepts `L-3` or `3`; null when absent. Removed learnings are returned too. */
  getLearning(idOrNumber: string): Promise<Learning | null>;
  /** Marks a learning removed at `now`; null when there is none or it was removed already. */
  removeLearning(idOrNumber: string, now: number): Promise<Learning | null>;
  /** One more finding dismissed by the learning: hits + 1, lastHitAt = now. Absent ids are ignored. */
  recordLearningHit(id: string, now: number): Promise<void>;
}

export interface LearningFilter {
  /** Only learnings of this repository (`Learning.repo`). */
  repo?: string;
  includeRemoved?: boolean;
}

export type ArtifactKind = "transcript" | "review";

export interface ArtifactInput {
  taskId: string;
  kind: ArtifactKind;
  /** A file name (no folder), e.g. `r3-implement-c0-v1-a1.log` or `t-4-r3-review-1.md`. */
  name: string;
  text: string;
}

export interface StoredArtifact extends ArtifactInput {
  /** Bytes of the text as given (before the cap). */
  size: number;
  /** True when the middle of the text was cut to fit the cap. */
  truncated: boolean;
  createdAt: number;
}

/** Text kept per artifact: beyond it the middle is cut (start and end kept). */
export const ARTIFACT_MAX_BYTES = 1_048_576;

/** An agent's process group as recorded by the worker that started it. */
export interface AgentGroup {
  taskId: string;
  /** The process group id (the agent's pid: each agent leads its own group). */
  pgid: number;
  /** `os.hostname()` of the worker's machine: a group is only ever signalled on its own host. */
  host: string;
  workerId: string;
  /** The leader's start time in clock ticks since boot (Linux /proc), when known. */
  startTicks: number | null;
  startedAt: number;
}

export interface TaskFilter {
  statuses?: TaskStatus[];
  /**
   * Tasks whose status is none of these (`status` by default: every task but the cancelled ones,
   * one comparison per task where a list of the other statuses costs a lookup per task).
   */
  excludeStatuses?: TaskStatus[];
  ids?: string[];
  /** Only tasks whose id starts with this (a PR's rework tasks, `pr-<n>-cycle-`). */
  idPrefix?: string;
  /** Only tasks on this branch. */
  branch?: string;
  parentId?: string;
  /**
   * Only tasks that still hold a worktree (`worktree`), or a worktree or a branch
   * (`worktree-or-branch`): what `clean` may remove, without reading every task.
   */
  holding?: "worktree" | "worktree-or-branch";
  /** Most recent first when set; default oldest first. */
  newestFirst?: boolean;
  limit?: number;
  /**
   * Keyset paging: only tasks after this `seq` in the listing order (greater oldest-first, smaller
   * with `newestFirst`). Pass the last `seq` of one page to get the next.
   */
  afterSeq?: number;
  /** Only tasks changed at or after this time (epoch ms). */
  updatedSince?: number;
  /** Keyset paging: only tasks with a lower seq (with `newestFirst`, the next page after it). */
  beforeSeq?: number;
}

/** Which findings and review stages `listReviewerActivity` reads; both fields optional. */
export interface ReviewerActivityFilter {
  taskId?: string;
  /** Epoch ms: findings created and review stages started at or after it. */
  since?: number;
}

/** Only what a reviewer's row is made of, not whole findings and stage records. */
export interface ReviewerActivity {
  findings: Pick<Finding, "sources" | "status" | "note" | "createdAt">[];
  reviews: Pick<StageExecution, "taskId" | "stageId" | "costUsd" | "startedAt">[];
}

/** Filters of `searchFindings`; every field optional, all of them must match. */
export interface FindingFilter {
  taskId?: string;
  statuses?: FindingStatus[];
  severities?: Severity[];
  /** Matches a source (`review:<stage>`, `gate:<name>`, `pr:<thread>`) or an author exactly. */
  reviewer?: string;
  /** A substring of the finding's file path. */
  file?: string;
  limit: number;
  offset?: number;
}

/** A page of `listTaskJson`: `json` holds `count` objects; `lastSeq` continues the listing (null when empty). */
export interface TaskJsonPage {
  /**
   * The objects, comma-separated, as UTF-8 bytes: written to stdout as the database gives them,
   * never decoded into a string and encoded again (40 MB at 100,000 tasks).
   */
  json: Uint8Array;
  count: number;
  lastSeq: number | null;
  /**
   * True only when the store vouches, from what it recorded as each text was written, that no
   * token shape (redact.ts) can match in `json`: the printer may then skip the token-shape scan
   * (it still hides its environment's secret values).
   */
  tokenFree: boolean;
  /**
   * Called once the caller no longer reads `json`: the store may write a later page into the same
   * memory. Optional both ways: a store may leave it out, and a caller that never calls it only
   * leaves the memory to the garbage collector.
   */
  release?(): void;
}

/** What listTaskLines needs besides the filter. */
export type TaskLineQuery = TaskFilter & {
  limit: number;
  /** The id column's width so far in the listing: a page widens it for a longer id, never narrows it. */
  idWidth: number;
  /**
   * The printing process's secret values (redact.ts): the table hides one in a title or reason
   * before cutting the text, which the recorded line did not, so a page with one is not exact.
   */
  secrets: readonly string[];
};

/** A page of listTaskLines; `count` and `lastSeq` as in TaskJsonPage. */
export interface TaskLinePage {
  /**
   * The page's lines as UTF-8 bytes, each ending with a newline, exactly as the CLI's statusLine
   * writes them at width `idWidth`; null when the store cannot vouch for that (a row it recorded
   * as not exact, a token shape or a secret value the line may cut): the CLI formats this page.
   * Lines given are token-free as TaskJsonPage.tokenFree says.
   */
  lines: Uint8Array | null;
  count: number;
  lastSeq: number | null;
  /** The id column's width after this page. */
  idWidth: number;
}

export interface TaskTotals {
  tasks: number;
  costUsd: number;
  tokens: number;
  /** Sum of the durations of every stage the tasks ran. */
  agentMs: number;
  /** How many of the tasks have each status; a status none has is left out. */
  byStatus: Partial<Record<TaskStatus, number>>;
}

export type TaskPatch = Partial<
  Pick<
    Task,
    | "status"
    | "finalVerdict"
    | "reason"
    | "cycle"
    | "currentStage"
    | "branch"
    | "worktreePath"
    | "maxCycles"
    | "priority"
    | "notes"
    | "workflow"
    | "budget"
    | "agents"
  >
> & { meta?: TaskMeta };

export interface RunPatch {
  status?: Run["status"];
  finalVerdict?: FinalVerdict | null;
  reason?: string | null;
  endedAt?: number | null;
  meta?: RunMeta;
}

export interface ClaimRequest {
  workerId: string;
  leaseMs: number;
  now: number;
  /** Only these tasks (ids as stored). */
  ids?: string[];
}

/** What the engine persists so a killed worker resumes exactly where it stopped. */
export interface StoredCheckpoint {
  runId: number;
  taskId: string;
  /** Monotonic per run. */
  seq: number;
  /** Raw JSON as written; the engine validates it (a corrupted row is the engine's error). */
  state: Json;
  createdAt: number;
}

export interface StageCommit {
  taskId: string;
  runId: number;
  /** Null for commits that only move the checkpoint (e.g. a run's first checkpoint). */
  stage: NewStageExecution | null;
  checkpoint: { state: JsonObject } | null;
  /** Full rows, upserted by (taskId, id). */
  findings: Finding[];
  events: NewTaskEvent[];
  /** The task row's changes; null leaves the row as it is (engine/task-position.ts). */
  task: TaskPatch | null;
  now: number;
  /**
   * Learnings the stage taught (`add`, e.g. a refuted finding) and the hits of learnings that
   * dismissed a finding it raised (`hits`: one id per dismissed finding), written with the rest.
   */
  learnings?: { add: NewLearning[]; hits: string[] };
  /**
   * Markers set (upserted) and artifacts stored with the rest, as `setMarker` and `saveArtifact`
   * do: the stage's agent reply and its transcript, when they wait for the record (engine/held-reply.ts).
   */
  markers?: { key: string; value: Json }[];
  artifacts?: ArtifactInput[];
  /**
   * Fencing: when set, the commit is refused with FixpointError("lease_lost") — and nothing is
   * written — unless this lease (worker and token) still holds the task. A worker whose lease
   * expired and was taken over can never overwrite the new owner's run.
   */
  fence?: Lease;
}
