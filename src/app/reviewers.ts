import type { ReviewerActivity, Store } from "../domain/store.js";
import type { Finding, StageExecution, Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { REFUTED_PREFIX } from "../findings/registry-verify.js";
import { parseDuration } from "../util/duration.js";
import { loadWorkflow } from "../workflow/loader.js";
import type { Workflow } from "../workflow/types.js";
import type { AppContext } from "./context.js";

/**
 * Each reviewer's precision and cost (issue 16, item 4): one row per reviewer, a review stage
 * (its stage id) or a PR reviewer or bot (`pr:<login>`), over every task or one.
 *
 * Every finding a reviewer reported counts once in `raised` and once in exactly one of:
 * - `duplicates`: another source raised it first (the reviewer's report was merged into it);
 * - `confirmed`: it raised it first and the finding is `resolved` (fixed, then resolved by the
 *   next review or a passing gate);
 * - `refuted`: it raised it first and a verify stage refuted it (dismissed with a `refuted: …`
 *   note, see findings/registry-verify.ts);
 * - `dismissed`: it raised it first and a person dismissed it, or a learning did (issue 16: a
 *   repeat of a dismissed finding, noted `dismissed by learning L-n: …`);
 * - `open`: anything not settled yet (open, fixed but not verified, deferred, blocked).
 *
 * `cost_usd` is what its review stages cost (0 for PR reviewers: fixpoint does not pay for
 * them); `cost_per_confirmed_usd` divides it by `confirmed`, null when nothing was confirmed.
 * The JSON field names are a contract (docs/cli.md).
 */
export interface ReviewerRow {
  reviewer: string;
  agent: string | null;
  model: string | null;
  raised: number;
  confirmed: number;
  refuted: number;
  dismissed: number;
  duplicates: number;
  open: number;
  cost_usd: number;
  cost_per_confirmed_usd: number | null;
}

export interface ReviewersDeps {
  store: Pick<Store, "getTask" | "listReviewerActivity">;
  /** The configured agent and model behind a task's review stage (from its workflow and config). */
  agentOf: (task: Task, stageId: string) => Promise<{ agent: string | null; model: string | null }>;
}

export interface ReviewersInput {
  /** Only findings raised and review stages started at or after this time (ms since epoch). */
  since?: number;
  /** One task instead of all. */
  taskId?: string;
  /**
   * One task whose findings and stages the caller has read already (`show`): counted as given,
   * nothing read again (at 20,000 findings, a second read was a third of `show`).
   */
  read?: { task: Task; findings: readonly Finding[]; stages: readonly StageExecution[] };
}

/** `review:<stage>` → the stage id; a PR source → `pr:<login>`; gates and the system → null. */
export function reviewerOf(source: { source: string; author?: string }): string | null {
  if (source.source.startsWith("review:")) return source.source.slice("review:".length);
  if (source.source.startsWith("pr:")) return source.author ? `pr:${source.author}` : null;
  return null;
}

type Outcome = "confirmed" | "refuted" | "dismissed" | "open";

function outcomeOf(f: Pick<Finding, "status" | "note">): Outcome {
  if (f.status === "resolved") return "confirmed";
  if (f.status === "dismissed") return f.note?.startsWith(REFUTED_PREFIX) ? "refuted" : "dismissed";
  return "open";
}

function emptyRow(reviewer: string): ReviewerRow {
  return {
    reviewer,
    agent: null,
    model: null,
    raised: 0,
    confirmed: 0,
    refuted: 0,
    dismissed: 0,
    duplicates: 0,
    open: 0,
    cost_usd: 0,
    cost_per_confirmed_usd: null,
  };
}

export async function reviewerStats(deps: ReviewersDeps, input: ReviewersInput = {}): Promise<ReviewerRow[]> {
  const since = input.since ?? Number.NEGATIVE_INFINITY;
  const rows = new Map<string, ReviewerRow>();
  const row = (id: string): ReviewerRow => {
    const hit = rows.get(id);
    if (hit) return hit;
    const made = emptyRow(id);
    rows.set(id, made);
    return made;
  };
  let activity: ReviewerActivity;
  let taskOf: (taskId: string) => Promise<Task | null>;
  if (input.read) {
    const { task, findings, stages } = input.read;
    activity = { findings: [...findings], reviews: stages.filter((s) => s.kind === "review") };
    taskOf = async () => task;
  } else {
    // Two reads whatever the number of tasks; a task is read only for the first review stage of
    // each reviewer, whose agent and model its workflow names.
    activity = await deps.store.listReviewerActivity({
      ...(input.taskId === undefined ? {} : { taskId: input.taskId }),
      ...(input.since === undefined ? {} : { since: input.since }),
    });
    taskOf = (taskId) => deps.store.getTask(taskId);
  }
  for (const f of activity.findings) {
    if (f.createdAt < since) continue;
    const reviewers = f.sources.map(reviewerOf);
    const first = reviewers[0] ?? null;
    for (const id of new Set(reviewers)) {
      if (id === null) continue;
      const r = row(id);
      r.raised++;
      if (id !== first) r.duplicates++;
      else r[outcomeOf(f)]++;
    }
  }
  for (const s of activity.reviews) {
    if (s.startedAt < since) continue;
    const r = row(s.stageId);
    r.cost_usd += s.costUsd;
    if (r.agent !== null) continue;
    const task = await taskOf(s.taskId);
    if (task) Object.assign(r, await deps.agentOf(task, s.stageId));
  }
  return [...rows.values()]
    .map((r) => {
      const cost = Math.round(r.cost_usd * 1e6) / 1e6;
      return {
        ...r,
        cost_usd: cost,
        cost_per_confirmed_usd: r.confirmed > 0 ? Math.round((cost / r.confirmed) * 1e6) / 1e6 : null,
      };
    })
    .sort((a, b) => a.reviewer.localeCompare(b.reviewer));
}

/** `2026-11-01`, a full ISO time, or a duration back from `now` (`7d`, `12h`); a usage error otherwise. */
export function parseSince(text: string, now: number): number {
  const ago = parseDuration(text);
  if (ago !== null && ago > 0) return now - ago;
  const at = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? Date.parse(text)
    : Number.NaN;
  if (Number.isNaN(at)) {
    throw new FixpointError("usage", `--since: not a date or a duration: ${text} (e.g. 2026-11-01 or 7d)`);
  }
  return at;
}

/** The store, and each review stage's agent and model from the task's workflow and the config. */
export function reviewersDeps(ctx: Pick<AppContext, "store" | "root" | "config">): ReviewersDeps {
  const workflows = new Map<string, Promise<Workflow | null>>();
  const workflow = (name: string): Promise<Workflow | null> => {
    let hit = workflows.get(name);
    if (!hit) {
      // A workflow that no longer loads leaves the agent unknown; the figures stand.
      hit = loadWorkflow(name, ctx.root).catch(() => null);
      workflows.set(name, hit);
    }
    return hit;
  };
  return {
    store: ctx.store,
    agentOf: async (task, stageId) => {
      const stage = (await workflow(task.workflow))?.stages.get(stageId);
      const role = stage?.agent ?? "reviewer";
      const agent = task.agents[role] ?? role;
      return { agent, model: ctx.config.agents[agent]?.model ?? null };
    },
  };
}

/** `fixpoint reviewers`: every reviewer's row, optionally only since a date or a duration ago. */
export async function listReviewers(
  ctx: Pick<AppContext, "store" | "root" | "config" | "clock">,
  input: { since?: string | undefined } = {},
): Promise<ReviewerRow[]> {
  const since = input.since === undefined ? undefined : parseSince(input.since, ctx.clock.now());
  return reviewerStats(reviewersDeps(ctx), since === undefined ? {} : { since });
}
