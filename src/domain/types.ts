/**
 * The core vocabulary of fixpoint (SPEC §2). Every module speaks in these types.
 *
 * Glossary
 * - Task: one unit of work (a prompt, a workflow, a branch and worktree, limits, a status and a
 *   final verdict). Ids are short and stable: `t-29`, or `pr-12-cycle-1` for PR rework.
 * - Run: one execution of a task's workflow. `resume` continues the last run from its
 *   checkpoint; `retry` starts a new run. All runs of a task share its findings registry.
 * - Stage: one step of a workflow; it ends with an outcome.
 * - Cycle: one pass of fix → gates → reviews. Cycle 0 is the first review of the implementation.
 * - Finding: one problem raised by a reviewer, a failing gate or a PR comment.
 * - Registry: every finding of a task with its status and history.
 * - Verdict: a reviewer's judgment of a cycle; the final verdict is the task's.
 * - Worker: a process that claims queued tasks and runs them.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const TASK_STATUSES = [
  "queued",
  "running",
  "completed",
  "needs_human",
  "failed",
  "cancelled",
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * The mark before a task of each status in `fixpoint status` (SPEC §3); a completed task whose
 * verdict is not an approval is marked `!` instead. The CLI's statusLine and PostgreSQL's lines
 * (store/postgres/task-line-page.ts) both print these.
 */
export const STATUS_MARKS: Readonly<Record<TaskStatus, string>> = {
  queued: "·",
  running: "→",
  completed: "✓",
  needs_human: "!",
  failed: "✗",
  cancelled: "✗",
};

/** A task not finished yet: waiting for a worker, or held by one. */
export const ACTIVE_TASK_STATUSES: readonly TaskStatus[] = ["queued", "running"];
export function isActiveTask(status: TaskStatus): boolean {
  return status === "queued" || status === "running";
}

/** A running task whose lease has not run out at `now`: its worker is alive and will end its run. */
export function heldByLiveWorker(task: Pick<Task, "status" | "leaseExpiresAt">, now: number): boolean {
  return task.status === "running" && task.leaseExpiresAt !== null && task.leaseExpiresAt > now;
}

export const TASK_TYPES = ["implement", "review", "improve", "pr-rework"] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** A reviewer's verdict on one cycle. */
export const REVIEW_VERDICTS = [
  "APPROVED",
  "APPROVED_WITH_FOLLOWUPS",
  "CHANGES_REQUESTED",
  "NEEDS_DISCUSSION",
] as const;
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

/** The task's final verdict (SPEC §9). */
export const FINAL_VERDICTS = [
  "APPROVED",
  "APPROVED_WITH_FOLLOWUPS",
  "MAX_CYCLES_REACHED",
  "NEEDS_DISCUSSION",
  "NO_PROGRESS",
  "BLOCKED",
  "BUDGET_EXHAUSTED",
  "CHANGES_REQUESTED",
] as const;
export type FinalVerdict = (typeof FINAL_VERDICTS)[number];

/**
 * Why a task that needs a person does, in a few words, by the verdict it ended with
 * (app/attention.ts needsKind); any other verdict is "escalated". PostgreSQL's status lines print
 * them too (store/postgres/task-line-page.ts).
 */
export const NEEDS_KIND_BY_VERDICT: Readonly<Partial<Record<FinalVerdict, string>>> = {
  BUDGET_EXHAUSTED: "budget reached",
  MAX_CYCLES_REACHED: "cycle limit reached",
  NO_PROGRESS: "no progress",
};
export const ESCALATED_KIND = "escalated";

export function isApproval(v: FinalVerdict | ReviewVerdict | null | undefined): boolean {
  return v === "APPROVED" || v === "APPROVED_WITH_FOLLOWUPS";
}

export interface Budget {
  usd?: number;
  tokens?: number;
}

export interface Task {
  id: string;
  /** Monotonic creation order; `t-<seq>` ids are derived from it. */
  seq: number;
  type: TaskType;
  title: string;
  prompt: string;
  workflow: string;
  /** Absolute path of the main repository checkout. */
  repo: string;
  baseBranch: string;
  branch: string | null;
  worktreePath: string | null;
  status: TaskStatus;
  finalVerdict: FinalVerdict | null;
  /** One line a person can act on when the task did not end approved. */
  reason: string | null;
  maxCycles: number;
  cycle: number;
  currentStage: string | null;
  /** Claim order: higher first, then oldest (lowest seq). Default 0. */
  priority: number;
  /** Free text a person keeps on the task (redacted before it is stored); null when none. */
  notes: string | null;
  budget: Budget;
  /** Agent overrides by role, from `add --agent/--review-agent`. */
  agents: Record<string, string>;
  /** Tolerant metadata bag (unknown keys ignored, missing keys defaulted). */
  meta: TaskMeta;
  parentId: string | null;
  workerId: string | null;
  leaseExpiresAt: number | null;
  /**
   * Lease generation: grows by one on every claim of the task, so together with `workerId` it
   * names one hold on the task (see `Lease` in domain/store.ts).
   */
  leaseToken: number;
  createdAt: number;
  updatedAt: number;
}

/** What status lines and listings need: a task without its prompt and metadata bags, with its spend. */
export type TaskSummary = TaskSpend &
  Pick<
    Task,
    | "id"
    | "seq"
    | "type"
    | "title"
    | "workflow"
    | "baseBranch"
    | "branch"
    | "worktreePath"
    | "status"
    | "finalVerdict"
    | "reason"
    | "maxCycles"
    | "cycle"
    | "currentStage"
    | "priority"
    | "parentId"
    | "createdAt"
    | "updatedAt"
  >;

/** What a task has cost so far, all runs and retries included. */
export interface TaskSpend {
  costUsd: number;
  tokens: number;
}

/** Everything optional: readers default what is missing and ignore what they do not know. */
export interface TaskMeta {
  prNumber?: number;
  reworkCycle?: number;
  reviewArtifact?: string;
  origin?: string;
  findingIds?: string[];
  noReview?: boolean;
}

export interface NewTask {
  id?: string;
  type: TaskType;
  title: string;
  prompt: string;
  workflow: string;
  repo: string;
  baseBranch: string;
  maxCycles: number;
  /** Default 0; higher is claimed first. */
  priority?: number;
  notes?: string | null;
  budget?: Budget;
  agents?: Record<string, string>;
  meta?: TaskMeta;
  parentId?: string | null;
  branch?: string | null;
  worktreePath?: string | null;
}

export const RUN_KINDS = ["start", "resume", "retry"] as const;
export type RunKind = (typeof RUN_KINDS)[number];
export type RunStatus = "running" | "completed" | "failed" | "cancelled" | "interrupted";

export interface Run {
  id: number;
  taskId: string;
  kind: RunKind;
  status: RunStatus;
  finalVerdict: FinalVerdict | null;
  reason: string | null;
  startedAt: number;
  endedAt: number | null;
  meta: RunMeta;
}

/** Tolerant run metadata (seed 002's compatibility contract). */
export interface RunMeta {
  /** P0/P1 findings open when the run ended without approval; `resume` starts from them. */
  lastReviewIssues?: StoredReviewIssue[];
  workerId?: string;
}

export interface StoredReviewIssue {
  id: string;
  file: string;
  lineStart: number;
  lineEnd: number;
  severity: Severity;
  title: string;
  body: string;
  reviewer: string;
}

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

export function totalTokens(u: TokenUsage): number {
  return u.input + u.output + u.cacheRead + u.cacheWrite;
}

export const STAGE_OUTCOMES = ["success", "fail", "partial_success", "retry", "skipped"] as const;
export type StageOutcome = (typeof STAGE_OUTCOMES)[number];

/** Why a stage did not succeed; expected failures are data, not exceptions. */
export type FailureClass =
  | "timeout"
  | "exit_nonzero"
  | "unparsable"
  | "cancelled"
  | "agent_error"
  | "budget"
  | "config"
  | "internal";

export interface StageExecution {
  id: number;
  runId: number;
  taskId: string;
  stageId: string;
  kind: string;
  visit: number;
  cycle: number;
  outcome: StageOutcome;
  failureClass: FailureClass | null;
  failureReason: string | null;
  verdict: ReviewVerdict | null;
  startedAt: number;
  endedAt: number;
  usage: TokenUsage;
  costUsd: number;
  headBefore: string | null;
  headAfter: string | null;
  sessionId: string | null;
  /** Short human summary, e.g. "2 findings (1 P1, 1 P2)". */
  summary: string | null;
  attempts: number;
}

export type NewStageExecution = Omit<StageExecution, "id">;

export interface TaskEvent {
  id: number;
  taskId: string;
  runId: number | null;
  ts: number;
  type: string;
  data: JsonObject;
}

export type NewTaskEvent = Omit<TaskEvent, "id" | "ts"> & { ts?: number };

// ---------------------------------------------------------------- findings

export const SEVERITIES = ["P0", "P1", "P2", "P3"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const FINDING_STATUSES = ["open", "fixed", "resolved", "blocked", "deferred", "dismissed"] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/**
 * Findings the loop still has to settle (SPEC §8): open, fixed (awaiting a reviewer's check) and
 * deferred. Resolved, dismissed and blocked ones stay put.
 */
export const ACTIVE_FINDING_STATUSES: ReadonlySet<FindingStatus> = new Set(["open", "fixed", "deferred"]);
export function isActiveFinding(status: string): boolean {
  return status === "open" || status === "fixed" || status === "deferred";
}

export type FixReportStatus = "fixed" | "blocked" | "deferred";

/** One fix cycle's account of a finding. */
export interface FixAttempt {
  cycle: number;
  status: FixReportStatus | "rejected" | "no_report";
  justification: string;
  commitSha: string | null;
  /** Set when the report was refused (weak excuse); shown to the fixer next cycle. */
  rejection?: string;
  at: number;
}

export interface FindingSource {
  /** `review:<stage>`, `gate:<name>`, `pr:<thread-id>`, `system`. */
  source: string;
  cycle: number;
  author?: string;
}

export interface Finding {
  taskId: string;
  /** Stable per task: F-1, F-2, … */
  id: string;
  fingerprint: string;
  severity: Severity;
  category: string;
  title: string;
  body: string;
  file: string | null;
  lineStart: number | null;
  lineEnd: number | null;
  suggestedFix: string | null;
  sources: FindingSource[];
  status: FindingStatus;
  firstCycle: number;
  lastCycle: number;
  timesReopened: number;
  attempts: FixAttempt[];
  /** The last reviewer note on it (from a `prior` entry). */
  note: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A finding as a reviewer (or a gate, or a PR thread) reports it, before registry identity. */
export interface RawFinding {
  severity: Severity;
  category: string;
  title: string;
  body: string;
  file: string | null;
  lineStart: number | null;
  lineEnd: number | null;
  suggestedFix: string | null;
}

export type PriorStatus = "resolved" | "still_open" | "not_applicable";

export interface PriorVerdict {
  id: string;
  status: PriorStatus;
  note?: string;
}

/** The parsed JSON of SPEC §7. */
export interface ReviewOutput {
  verdict: ReviewVerdict;
  summary: string;
  findings: RawFinding[];
  prior: PriorVerdict[];
}

export interface FixReportEntry {
  id: string;
  status: FixReportStatus;
  justification: string;
  /** For blocked: one of the accepted reasons. */
  reason?: string;
}

export interface FixReport {
  summary: string;
  entries: FixReportEntry[];
}

// ---------------------------------------------------------------- learnings

/** Where a learning came from: a person's dismissal, a refuting verify stage, a PR reply, a person. */
export const LEARNING_KINDS = ["dismissed", "refuted", "pr-reply", "person"] as const;
export type LearningKind = (typeof LEARNING_KINDS)[number];

export interface LearningSource {
  kind: LearningKind;
  taskId?: string;
  findingId?: string;
  /** The PR author whose reply taught it (kind `pr-reply`). */
  author?: string;
}

/**
 * The finding a learning was taught by, kept with the learning so matching still works when the
 * task is gone. A new finding matching it (same file, nearby lines, similar title: the dedup
 * rules) is dismissed by the learning.
 */
export interface LearningOrigin {
  file: string | null;
  lineStart: number | null;
  lineEnd: number | null;
  title: string;
  severity: Severity;
}

/**
 * A short statement about a repository that reviewers are told and that dismisses the finding it
 * came from when it is raised again (issue 16). Ids are `L-<n>`, in creation order per store.
 */
export interface Learning {
  id: string;
  /** Absolute path of the repository checkout it belongs to (like `Task.repo`). */
  repo: string;
  text: string;
  /** A path glob (`src/api/**`), or null for the whole repository. */
  scope: string | null;
  source: LearningSource;
  origin: LearningOrigin | null;
  createdAt: number;
  /** Who recorded it: a person (the actor) or a stage (`verify:<stage>`). */
  createdBy: string;
  /** How many findings it has dismissed since. */
  hits: number;
  lastHitAt: number | null;
  /** Set by `learnings rm`; a removed learning is neither told nor matched. */
  removedAt: number | null;
}

export type NewLearning = Omit<Learning, "id" | "hits" | "lastHitAt" | "removedAt">;
