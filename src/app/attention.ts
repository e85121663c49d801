import { ESCALATED_KIND, NEEDS_KIND_BY_VERDICT, type TaskStatus, type TaskSummary } from "../domain/types.js";

/**
 * Why a task needs a person, or why it stopped: the one derivation the morning report (the
 * dashboard's home and task pages) and `fixpoint status` both show, so the two never disagree.
 */

/** Statuses that mean "a person must act": escalated, waiting at a `human` stage, a limit reached. */
export const NEEDS_ME_STATUSES: readonly TaskStatus[] = ["needs_human"];

type ReasonFields = Pick<TaskSummary, "status" | "finalVerdict" | "currentStage" | "reason">;

/** Why a task needs a person, in a few words (the morning report's sub-groups); null when it does not. */
export function needsKind(t: Pick<TaskSummary, "status" | "finalVerdict" | "currentStage">): string | null {
  if (t.status !== "needs_human") return null;
  if (t.finalVerdict === null) return t.currentStage ? `waiting at ${t.currentStage}` : "waiting";
  return NEEDS_KIND_BY_VERDICT[t.finalVerdict] ?? ESCALATED_KIND;
}

/** True when the task waits for a person (what `status --needs-me` lists). */
export function needsMe(t: Pick<TaskSummary, "status">): boolean {
  return NEEDS_ME_STATUSES.includes(t.status);
}

/**
 * The one-line reason shown beside a task: the needs-you kind and the stored reason
 * (`cycle limit reached: 2 blocking findings left`), `failed: <why>` for a failed task, the stored
 * reason alone otherwise; "" when there is nothing to say. Line breaks are folded so it stays one line.
 */
export function taskReason(t: ReasonFields): string {
  const kind = needsKind(t);
  const why = (t.reason ?? "").replace(/\s+/g, " ").trim();
  if (kind !== null) return why === "" ? kind : `${kind}: ${why}`;
  if (t.status === "failed") return why === "" ? "failed" : `failed: ${why}`;
  return why;
}
