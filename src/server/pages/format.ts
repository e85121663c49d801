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

/** The one derivation of "why it needs you", shared with `fixpoint status`. */
export { needsKind, taskReason } from "../../app/attention.js";

export function statusBadge(status: string, verdict: string | null): Html {
  return html`<span class="badge s-${status}">${status}</span>${verdict ? html` <span class="badge v">${verdict}</span>` : ""}`;
}
