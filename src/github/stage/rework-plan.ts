import type { PullRequest } from "../../domain/github.js";
import type { TaskSummary } from "../../domain/types.js";
import { isActiveTask } from "../../domain/types.js";

/** `pr-<n>-cycle-<k>`: one rework task per PR and cycle (seed 004). */
export function reworkTaskId(pr: number, cycle: number): string {
  return `${reworkTaskPrefix(pr)}${cycle}`;
}

/** What every rework task id of `pr` starts with. */
export function reworkTaskPrefix(pr: number): string {
  return `pr-${pr}-cycle-`;
}

/** The cycle of a rework task id of `pr`, or null when `id` is no such task. */
export function reworkCycleOf(id: string, pr: number): number | null {
  const m = new RegExp(`^pr-${pr}-cycle-(\\d+)$`).exec(id);
  return m?.[1] ? Number(m[1]) : null;
}

export type ReworkDecision =
  | { kind: "closed"; pull: PullRequest }
  /** The latest rework task has not finished: continue it instead of starting another cycle. */
  | { kind: "continue"; task: TaskSummary }
  | { kind: "limit"; escalate: TaskSummary | null; cycles: number }
  | { kind: "create"; cycle: number; original: TaskSummary | null; previous: TaskSummary | null };

/**
 * What `fixpoint pr rework <n>` does, decided from the PR and the tasks alone (pure):
 * - a merged or closed PR: nothing;
 * - an unfinished rework task of this PR (queued, running, or interrupted mid-run): continue it —
 *   so a crash or a repeated command never opens a second task for the same cycle;
 * - past `max-rework-cycles`: escalate the original task (the one on the PR's branch), else the
 *   latest rework task;
 * - otherwise the next cycle, k = 1 + the number of rework tasks this PR already has.
 */
export function decideRework(pull: PullRequest, tasks: TaskSummary[], maxCycles: number): ReworkDecision {
  if (pull.state !== "open") return { kind: "closed", pull };
  const rework = tasks
    .map((t) => ({ t, k: reworkCycleOf(t.id, pull.number) }))
    .filter((x): x is { t: TaskSummary; k: number } => x.k !== null)
    .sort((a, b) => a.k - b.k);
  const latest = rework.at(-1)?.t ?? null;
  if (latest && unfinished(latest)) return { kind: "continue", task: latest };
  const original =
    tasks
      .filter((t) => t.branch === pull.head && reworkCycleOf(t.id, pull.number) === null)
      .sort((a, b) => b.seq - a.seq)[0] ?? null;
  const cycle = rework.length + 1;
  if (cycle > maxCycles) return { kind: "limit", escalate: original ?? latest, cycles: rework.length };
  return { kind: "create", cycle, original, previous: latest };
}

function unfinished(t: TaskSummary): boolean {
  if (isActiveTask(t.status)) return true;
  // An interrupted run ends needs_human with the stage it stopped at still recorded.
  return t.status === "needs_human" && t.currentStage !== null;
}
