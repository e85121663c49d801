import type { GithubClient, PullReview } from "../../domain/github.js";
import type { RawFinding } from "../../domain/types.js";
import type { StageContext, StageResult } from "../../engine/deps.js";
import { writeAccessFrom } from "../authors.js";
import { fetchFeedback, filterFeedback, findingsFromThreads } from "../feedback.js";
import { parseSeverityTag } from "../severity-tags.js";
import { titleOf } from "../thread-finding.js";
import { closedMessage, pullContext, pullOfTask } from "./pull-of-task.js";
import { ghSkipped, ghSuccess } from "./result.js";
import type { GithubStageDeps } from "./stage-deps.js";

/**
 * `ingest`: the PR's feedback from allowed authors becomes findings (SPEC §11). Each unresolved
 * review thread is one finding with source `pr:<thread id>` and its author; a review that asks
 * for changes with a written summary is one more (`pr-review:<id>`). Threads resolved on GitHub
 * resolve the findings they raised. Everything from other authors is dropped before it is
 * turned into anything, and only counted. A read that times out continues with what arrived.
 */
export async function ingestFeedback(
  client: GithubClient,
  deps: GithubStageDeps,
  ctx: StageContext,
): Promise<StageResult> {
  const pull = await pullOfTask(client, ctx.task);
  if (!pull) return ghSkipped(`no pull request for ${ctx.task.branch ?? "this task"}`);
  if (pull.state !== "open") return ghSkipped(closedMessage(pull), { context: pullContext(pull) });

  const raw = await fetchFeedback(client, pull.number, {
    timeoutMs: deps.config.commentTimeoutMs,
    clock: deps.clock,
  });
  const { feedback, ignored } = await filterFeedback(raw, {
    allowAuthors: deps.config.allowAuthors,
    bots: deps.config.bots,
    hasWriteAccess: writeAccessFrom(client),
  });
  const events = [];
  const now = deps.clock.now();
  const base = { taskId: ctx.task.id, runId: ctx.runId };
  if (ignored.length > 0) {
    const count = ignored.reduce((n, i) => n + i.count, 0);
    events.push({
      ...base,
      type: "github.ignored_authors",
      data: { pr: pull.number, count, authors: ignored.map((i) => ({ ...i })) },
    });
    const message = `PR #${pull.number}: ${count} comment${count === 1 ? "" : "s"} from other authors ignored (not allowed to instruct agents)`;
    ctx.deps.listener({ type: "notice", taskId: ctx.task.id, message });
  }
  if (raw.partialReason) {
    events.push({
      ...base,
      type: "github.feedback_partial",
      data: { pr: pull.number, reason: raw.partialReason },
    });
    ctx.deps.listener({
      type: "notice",
      taskId: ctx.task.id,
      message: `PR #${pull.number}: ${raw.partialReason}`,
    });
  }
  if (events.length) await deps.store.appendEvents(events, now);

  const threads = findingsFromThreads(feedback.threads);
  const reviews = feedback.reviews.filter(asksForChanges).map(reviewFinding);
  const findings: RawFinding[] = [...threads, ...reviews.map((r) => r.finding)].map(toRaw);
  const origins = [
    ...threads.map((t) => ({ source: t.source, ...(t.author ? { author: t.author } : {}) })),
    ...reviews.map((r) => r.origin),
  ];
  const resolvedSources = feedback.threads.filter((t) => t.isResolved).map((t) => `pr:${t.id}`);
  const parts = [`PR #${pull.number}: ${threads.length} unresolved thread${threads.length === 1 ? "" : "s"}`];
  if (reviews.length)
    parts.push(`${reviews.length} review${reviews.length === 1 ? "" : "s"} asking for changes`);
  const skipped = ignored.reduce((n, i) => n + i.count, 0);
  if (skipped) parts.push(`${skipped} comment${skipped === 1 ? "" : "s"} from other authors ignored`);
  if (raw.partialReason) parts.push(raw.partialReason);
  return ghSuccess(
    parts.join("; "),
    { type: "findings", source: `pr:${pull.number}`, findings, origins, resolvedSources },
    // `wait-for-review`: the pr-rework workflow routes to `await-review` on this key.
    { context: { ...pullContext(pull), "github.wait_for_review": deps.config.waitForReview } },
  );
}

function asksForChanges(r: PullReview): boolean {
  return r.state === "CHANGES_REQUESTED" && r.body.trim() !== "";
}

function reviewFinding(r: PullReview): { finding: RawFinding; origin: { source: string; author?: string } } {
  return {
    finding: {
      severity: parseSeverityTag(r.body) ?? "P2",
      category: "review",
      title: titleOf(r.body) || "Changes requested in a pull request review",
      body: `@${r.author ?? "ghost"}:\n${r.body.trim()}`,
      file: null,
      lineStart: null,
      lineEnd: null,
      suggestedFix: null,
    },
    origin: { source: `pr-review:${r.id}`, ...(r.author ? { author: r.author } : {}) },
  };
}

/** Only the RawFinding fields: the effect is stored in checkpoints, extra keys would ride along. */
function toRaw(f: RawFinding): RawFinding {
  const { severity, category, title, body, file, lineStart, lineEnd, suggestedFix } = f;
  return { severity, category, title, body, file, lineStart, lineEnd, suggestedFix };
}
