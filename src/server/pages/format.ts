import type { TaskSummary } from "../../domain/types.js";
import { isActiveTask } from "../../domain/types.js";
import { formatDuration } from "../../util/duration.js";
import { type Html, html } from "../html.js";

export function money(usd: number): string {
  return `$${usd.toFixed(usd > 0 && usd < 0.01 ? 4 : 2)}`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  return formatDuration(Math.round(ms / 1000) * 1000);
}

export function when(ts: number): string {
  return new Date(ts).toISOString().replace("T", " ").slice(0, 19);
}

/** Time a task has taken: until now while it is active, until its last change otherwise. */
export function elapsedOf(t: Pick<TaskSummary, "status" | "createdAt" | "updatedAt">, now: number): number {
  return (isActiveTask(t.status) ? now : t.updatedAt) - t.createdAt;
}

/** Why a task needs a person, in a few words (the morning report's sub-groups). */
export function needsKind(t: Pick<TaskSummary, "status" | "finalVerdict" | "currentStage">): string | null {
  if (t.status !== "needs_human") return null;
  switch (t.finalVerdict) {
    case null:
      return t.currentStage ? `waiting at ${t.currentStage}` : "waiting";
    case "BUDGET_EXHAUSTED":
      return "budget reached";
    case "MAX_CYCLES_REACHED":
      return "cycle limit reached";
    case "NO_PROGRESS":
      return "no progress";
    default:
      return "escalated";
  }
}

export function statusBadge(status: string, verdict: string | null): Html {
  return html`<span class="badge s-${status}">${status}</span>${verdict ? html` <span class="badge v">${verdict}</span>` : ""}`;
}
