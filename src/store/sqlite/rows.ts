/**
 * Row shapes as SQLite returns them, and their mapping to domain types. Enum-like columns are
 * checked against the known values with a documented fallback, so a value written by a newer
 * fixpoint reads as something this one can act on instead of an impossible type.
 */

import type { ReviewerActivity, StoredCheckpoint, WorkerRecord } from "../../domain/store.js";
import {
  type FailureClass,
  FINAL_VERDICTS,
  FINDING_STATUSES,
  type FinalVerdict,
  type Finding,
  REVIEW_VERDICTS,
  RUN_KINDS,
  type Run,
  type RunStatus,
  SEVERITIES,
  STAGE_OUTCOMES,
  type StageExecution,
  TASK_STATUSES,
  TASK_TYPES,
  type Task,
  type TaskEvent,
  type TaskSummary,
} from "../../domain/types.js";
import {
  parseAgents,
  parseAttempts,
  parseBudget,
  parseEventData,
  parseJsonOrText,
  parseRunMeta,
  parseSources,
  parseTaskMeta,
} from "./tolerant.js";

export type Cell = string | number | null;

/** A row as better-sqlite3 returns it: column name to value. */
export type Row = Record<string, Cell | undefined>;

function oneOf<T extends string>(values: readonly T[], v: unknown, fallback: T): T {
  return values.find((x) => x === v) ?? fallback;
}
function oneOfOrNull<T extends string>(values: readonly T[], v: unknown): T | null {
  return values.find((x) => x === v) ?? null;
}
const text = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : String(v));
const textOrNull = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number => (typeof v === "number" ? v : 0);
const numOrNull = (v: unknown): number | null => (typeof v === "number" ? v : null);

const RUN_STATUSES: readonly RunStatus[] = ["running", "completed", "failed", "cancelled", "interrupted"];
const FAILURE_CLASSES: readonly FailureClass[] = [
  "timeout",
  "exit_nonzero",
  "unparsable",
  "cancelled",
  "agent_error",
  "budget",
  "config",
  "internal",
];

/**
 * Task columns in a fixed order. Tasks are read as positional arrays (better-sqlite3's raw mode):
 * building 10,000 wide row objects costs more than the query itself, and `status` must list
 * 10,000 tasks in well under 100 ms.
 */
export const TASK_COLUMNS = [
  "id",
  "seq",
  "type",
  "title",
  "prompt",
  "workflow",
  "repo",
  "base_branch",
  "branch",
  "worktree_path",
  "status",
  "final_verdict",
  "reason",
  "max_cycles",
  "cycle",
  "current_stage",
  "budget",
  "agents",
  "meta",
  "parent_id",
  "worker_id",
  "lease_expires_at",
  "lease_token",
  "priority",
  "notes",
  "created_at",
  "updated_at",
] as const;

/** `SELECT ${TASK_SELECT} FROM tasks` / `RETURNING ${TASK_SELECT}`, matching toTask's positions. */
export const TASK_SELECT = TASK_COLUMNS.join(", ");

const C = Object.fromEntries(TASK_COLUMNS.map((name, i) => [name, i])) as Record<
  (typeof TASK_COLUMNS)[number],
  number
>;

const SUMMARY_COLUMNS = [
  "id",
  "seq",
  "type",
  "title",
  "workflow",
  "base_branch",
  "branch",
  "worktree_path",
  "status",
  "final_verdict",
  "reason",
  "max_cycles",
  "cycle",
  "current_stage",
  "parent_id",
  "created_at",
  "updated_at",
] as const;

/**
 * `SELECT ${SUMMARY_SELECT} FROM tasks`, matching toTaskSummary's positions (spend: migration
 * 003, priority: 010). SQLite's `tasks_listing` index covers exactly these columns.
 */
export const SUMMARY_SELECT = `${SUMMARY_COLUMNS.join(", ")}, cost_usd, tokens, priority`;

export function toTaskSummary(r: readonly Cell[]): TaskSummary {
  return {
    id: text(r[0]),
    seq: num(r[1]),
    type: oneOf(TASK_TYPES, r[2], "implement"),
    title: text(r[3]),
    workflow: text(r[4]),
    baseBranch: text(r[5]),
    branch: textOrNull(r[6]),
    worktreePath: textOrNull(r[7]),
    status: oneOf(TASK_STATUSES, r[8], "needs_human"),
    finalVerdict: oneOfOrNull<FinalVerdict>(FINAL_VERDICTS, r[9]),
    reason: textOrNull(r[10]),
    maxCycles: num(r[11]),
    cycle: num(r[12]),
    currentStage: textOrNull(r[13]),
    parentId: textOrNull(r[14]),
    createdAt: num(r[15]),
    updatedAt: num(r[16]),
    costUsd: num(r[17]),
    tokens: num(r[18]),
    priority: num(r[19]),
  };
}

export function toTask(r: readonly Cell[]): Task {
  return {
    id: text(r[C.id]),
    seq: num(r[C.seq]),
    type: oneOf(TASK_TYPES, r[C.type], "implement"),
    title: text(r[C.title]),
    prompt: text(r[C.prompt]),
    workflow: text(r[C.workflow]),
    repo: text(r[C.repo]),
    baseBranch: text(r[C.base_branch]),
    branch: textOrNull(r[C.branch]),
    worktreePath: textOrNull(r[C.worktree_path]),
    // An unknown status needs a person, never a silent re-run.
    status: oneOf(TASK_STATUSES, r[C.status], "needs_human"),
    finalVerdict: oneOfOrNull<FinalVerdict>(FINAL_VERDICTS, r[C.final_verdict]),
    reason: textOrNull(r[C.reason]),
    maxCycles: num(r[C.max_cycles]),
    cycle: num(r[C.cycle]),
    currentStage: textOrNull(r[C.current_stage]),
    budget: parseBudget(r[C.budget]),
    agents: parseAgents(r[C.agents]),
    meta: parseTaskMeta(r[C.meta]),
    parentId: textOrNull(r[C.parent_id]),
    workerId: textOrNull(r[C.worker_id]),
    leaseExpiresAt: numOrNull(r[C.lease_expires_at]),
    leaseToken: num(r[C.lease_token]),
    priority: num(r[C.priority]),
    notes: textOrNull(r[C.notes]),
    createdAt: num(r[C.created_at]),
    updatedAt: num(r[C.updated_at]),
  };
}

export function toRun(r: Row): Run {
  return {
    id: num(r.id),
    taskId: text(r.task_id),
    kind: oneOf(RUN_KINDS, r.kind, "start"),
    status: oneOf(RUN_STATUSES, r.status, "interrupted"),
    finalVerdict: oneOfOrNull<FinalVerdict>(FINAL_VERDICTS, r.final_verdict),
    reason: textOrNull(r.reason),
    startedAt: num(r.started_at),
    endedAt: numOrNull(r.ended_at),
    meta: parseRunMeta(r.meta),
  };
}

export function toStageExecution(r: Row): StageExecution {
  return {
    id: num(r.id),
    runId: num(r.run_id),
    taskId: text(r.task_id),
    stageId: text(r.stage_id),
    kind: text(r.kind),
    visit: num(r.visit),
    cycle: num(r.cycle),
    outcome: oneOf(STAGE_OUTCOMES, r.outcome, "fail"),
    failureClass: oneOfOrNull(FAILURE_CLASSES, r.failure_class),
    failureReason: textOrNull(r.failure_reason),
    verdict: oneOfOrNull(REVIEW_VERDICTS, r.verdict),
    startedAt: num(r.started_at),
    endedAt: num(r.ended_at),
    usage: {
      input: num(r.input_tokens),
      output: num(r.output_tokens),
      cacheRead: num(r.cache_read_tokens),
      cacheWrite: num(r.cache_write_tokens),
    },
    costUsd: num(r.cost_usd),
    headBefore: textOrNull(r.head_before),
    headAfter: textOrNull(r.head_after),
    sessionId: textOrNull(r.session_id),
    summary: textOrNull(r.summary),
    attempts: num(r.attempts),
  };
}

export function toFinding(r: Row): Finding {
  return {
    taskId: text(r.task_id),
    id: text(r.id),
    fingerprint: text(r.fingerprint),
    severity: oneOf(SEVERITIES, r.severity, "P2"),
    category: text(r.category),
    title: text(r.title),
    body: text(r.body),
    file: textOrNull(r.file),
    lineStart: numOrNull(r.line_start),
    lineEnd: numOrNull(r.line_end),
    suggestedFix: textOrNull(r.suggested_fix),
    sources: parseSources(r.sources),
    status: oneOf(FINDING_STATUSES, r.status, "open"),
    firstCycle: num(r.first_cycle),
    lastCycle: num(r.last_cycle),
    timesReopened: num(r.times_reopened),
    attempts: parseAttempts(r.attempts),
    note: textOrNull(r.note),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** A finding as `listReviewerActivity` reads it: sources, status, note, created_at. */
export function toReviewerFinding(r: Row): ReviewerActivity["findings"][number] {
  return {
    sources: parseSources(r.sources),
    status: oneOf(FINDING_STATUSES, r.status, "open"),
    note: textOrNull(r.note),
    createdAt: num(r.created_at),
  };
}

/** A review stage as `listReviewerActivity` reads it: task_id, stage_id, cost_usd, started_at. */
export function toReviewStage(r: Row): ReviewerActivity["reviews"][number] {
  return {
    taskId: text(r.task_id),
    stageId: text(r.stage_id),
    costUsd: num(r.cost_usd),
    startedAt: num(r.started_at),
  };
}

export function toEvent(r: Row): TaskEvent {
  return {
    id: num(r.id),
    taskId: text(r.task_id),
    runId: numOrNull(r.run_id),
    ts: num(r.ts),
    type: text(r.type),
    data: parseEventData(r.data),
  };
}

export function toCheckpoint(r: Row): StoredCheckpoint {
  return {
    runId: num(r.run_id),
    taskId: text(r.task_id),
    seq: num(r.seq),
    state: parseJsonOrText(r.state),
    createdAt: num(r.created_at),
  };
}

export function toWorker(r: Row): WorkerRecord {
  return {
    id: text(r.id),
    host: text(r.host),
    pid: num(r.pid),
    concurrency: num(r.concurrency),
    startedAt: num(r.started_at),
    heartbeatAt: num(r.heartbeat_at),
  };
}
