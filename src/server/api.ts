import type { TaskDetails } from "../app/show.js";
import type { FindingFilter, TaskTotals } from "../domain/store.js";
import type { FinalVerdict, Finding, TaskEvent, TaskStatus, TaskSummary } from "../domain/types.js";

/**
 * What the dashboard reads and does. `app-api.ts` implements it with the application layer's use
 * cases (`src/app`) and the Store port's paged reads; pages and routes see only this interface,
 * never the store or SQL, so tests can put a failing or slow implementation behind it.
 *
 * Contract: unknown task ids fail with FixpointError("not_found"); an action that does not fit
 * the task's state fails with FixpointError("usage") and a reason a person can act on; every
 * action records an event naming its actor and time.
 */
export interface DashboardApi {
  // ---- reads
  /** Tasks newest first, `limit` at a time; `beforeSeq` gives the next page. */
  status(input: StatusInput): Promise<TaskSummary[]>;
  countTasks(input: { statuses?: TaskStatus[]; since?: number }): Promise<number>;
  totals(input: { since?: number }): Promise<TaskTotals>;
  show(taskId: string): Promise<TaskDetail>;
  findings(filter: FindingFilter): Promise<Finding[]>;
  /** The task branch's diff against its base (merge-base); null when the branch does not exist yet. */
  diff(taskId: string): Promise<string | null>;
  /**
   * Transcripts and review artifacts of a task, by name: the first `limit` of them (all without
   * one), and how many there are.
   */
  artifacts(taskId: string, limit?: number): Promise<ArtifactList>;
  /** `length` bytes of one artifact from `offset` (never the whole file). */
  readArtifact(taskId: string, name: string, offset: number, length: number): Promise<ArtifactChunk>;
  /** Events of every task after `afterId`, oldest first (the live feed). */
  events(afterId: number, limit: number): Promise<TaskEvent[]>;
  /** The web address of a pull request of this repository; null without a GitHub configuration. */
  pullRequestUrl(prNumber: number): string | null;
  /** Where a live feed starts: the newest event id (0 when none). */
  lastEventId(): Promise<number>;

  // ---- actions
  approve(input: ActionInput & { note?: string }): Promise<ActionResult>;
  reject(input: ActionInput & { note: string }): Promise<ActionResult>;
  cancel(input: ActionInput): Promise<ActionResult>;
  resume(input: ActionInput & { feedback?: string }): Promise<ActionResult>;
  retry(input: ActionInput): Promise<ActionResult>;
  /** Edits the verdict, or raises the budget / max cycles (then `requeue` resumes the task). */
  editTask(input: ActionInput & EditTaskInput): Promise<ActionResult>;
  deferFinding(input: ActionInput & { findingId: string; justification: string }): Promise<ActionResult>;
  reopenFinding(input: ActionInput & { findingId: string; justification: string }): Promise<ActionResult>;
}

export interface StatusInput {
  statuses?: TaskStatus[];
  since?: number;
  limit: number;
  beforeSeq?: number;
}

/** What the task page shows: the application layer's `showTask` result. */
export type TaskDetail = TaskDetails;

export interface ArtifactInfo {
  name: string;
  kind: "transcript" | "review";
  bytes: number;
}

export interface ArtifactList {
  artifacts: ArtifactInfo[];
  /** Every artifact the task has, `artifacts` being the first of them. */
  total: number;
}

export interface ArtifactChunk {
  text: string;
  offset: number;
  /** Offset of the next chunk; null at the end. */
  next: number | null;
  bytes: number;
}

/** Who acts is fixed when the api is created (the dashboard's actor), not per request. */
export interface ActionInput {
  taskId: string;
}

export interface EditTaskInput {
  verdict?: FinalVerdict;
  budgetUsd?: number;
  maxCycles?: number;
  requeue?: boolean;
}

export interface ActionResult {
  taskId: string;
  message: string;
}
