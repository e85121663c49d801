import type { GithubClient } from "../../domain/github.js";
import type { StageContext, StageResult } from "../../engine/deps.js";
import type { StageDef } from "../../workflow/types.js";
import { writeAccessFrom } from "../authors.js";
import { fetchFeedback, filterFeedback } from "../feedback.js";
import { closedMessage, pullContext, pullOfTask } from "./pull-of-task.js";
import { ghFail, ghSkipped, ghSuccess } from "./result.js";
import { judgeReviews } from "./review-state.js";
import { reworkTaskId } from "./rework-plan.js";
import type { GithubStageDeps } from "./stage-deps.js";

/** Set while a task waits at `await-review` for PR `pr`'s reviewers; cleared when they answer. */
export function awaitMarkerKey(pr: number): string {
  return `gh-await:${pr}`;
}

export interface AwaitMarker {
  task: string;
  stage: string;
  /** The head fixpoint pushed and the reviewers are asked about. */
  head: string;
}

export function parseAwaitMarker(v: unknown): AwaitMarker | null {
  if (typeof v !== "object" || v === null) return null;
  const { task, stage, head } = v as Record<string, unknown>;
  return typeof task === "string" && typeof stage === "string" && typeof head === "string"
    ? { task, stage, head }
    : null;
}

/**
 * `await-review` (`wait-for-review`): after the push and the replies, the PR's own reviewers
 * judge the new head instead of fixpoint's. Nobody has yet → the run pauses (the task is left
 * needs_human, no worker waits; `fixpoint pr watch` continues it when they answer). They
 * approved → success, and the findings the PR raised that were fixed or resolved on GitHub are
 * resolved. They asked for more (a CHANGES_REQUESTED review on the head, or words in a thread
 * fixpoint has not answered) → the stage fails with the reason, and the next rework cycle,
 * started by `pr watch` / `pr rework`, takes the new feedback.
 */
export async function awaitReview(
  client: GithubClient,
  deps: GithubStageDeps,
  stage: StageDef,
  ctx: StageContext,
): Promise<StageResult> {
  const pull = await pullOfTask(client, ctx.task);
  if (!pull) return ghFail(`no pull request for ${ctx.task.branch ?? "this task"}; no reviewers to wait for`);
  const key = awaitMarkerKey(pull.number);
  const now = deps.clock.now();
  if (pull.state !== "open") {
    await deps.store.setMarker(key, null, now);
    return ghSkipped(closedMessage(pull), { context: pullContext(pull) });
  }
  const head = await ctx.deps.git.headSha(ctx.workdir);
  const raw = await fetchFeedback(client, pull.number, {
    timeoutMs: deps.config.commentTimeoutMs,
    clock: deps.clock,
  });
  const { feedback } = await filterFeedback(raw, {
    allowAuthors: deps.config.allowAuthors,
    bots: deps.config.bots,
    hasWriteAccess: writeAccessFrom(client),
  });
  const answer = judgeReviews(feedback, raw.threads, head);
  const short = head.slice(0, 12);
  const event = (type: string, data: Record<string, string | number | string[] | null>) =>
    deps.store.appendEvents([{ taskId: ctx.task.id, runId: ctx.runId, type, data }], now);

  if (answer.kind === "waiting") {
    const marker: AwaitMarker = { task: ctx.task.id, stage: stage.id, head };
    await deps.store.setMarker(key, { ...marker }, now);
    await event("github.awaiting_review", { pr: pull.number, head, partial: raw.partialReason ?? null });
    const reason = `waiting for the PR's reviewers on #${pull.number} (head ${short}); \`fixpoint pr watch\` continues when they answer`;
    return { ...ghSuccess(reason), outcome: "retry", pause: { reason } };
  }

  await deps.store.setMarker(key, null, now);
  const kind = answer.kind === "approved" ? "approved" : "changes_requested";
  await event("github.review_answered", { pr: pull.number, head, state: kind, by: answer.by });
  const context = { ...pullContext(pull), "github.review": kind };
  if (answer.kind === "changes") {
    const next = reworkTaskId(pull.number, (ctx.task.meta.reworkCycle ?? 0) + 1);
    const reason = `the PR's reviewers asked for more changes; rework continues in ${next}`;
    return ghFail(reason, "exit_nonzero", { context });
  }
  // The reviewers approved the head holding the fixes: what the PR raised and fixpoint fixed is
  // settled, like a thread resolved on GitHub. Blocked and deferred findings stay as they are.
  const resolvedSources = new Set(feedback.threads.filter((t) => t.isResolved).map((t) => `pr:${t.id}`));
  for (const f of ctx.registry.all())
    if (f.status === "fixed")
      for (const s of f.sources) if (/^pr(-review)?:/.test(s.source)) resolvedSources.add(s.source);
  return ghSuccess(
    `PR #${pull.number}: approved by ${answer.by.join(", ")} at ${short}`,
    { type: "findings", source: `pr:${pull.number}`, findings: [], resolvedSources: [...resolvedSources] },
    { context },
  );
}
