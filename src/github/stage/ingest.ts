import type { GithubClient } from "../../domain/github.js";
import type { RawFinding } from "../../domain/types.js";
import type { StageContext, StageResult } from "../../engine/deps.js";
import { oneLine } from "../../findings/fence.js";
import { LearningMatcher, learningOrigin } from "../../findings/learnings.js";
import { redactSecrets } from "../../util/redact.js";
import { writeAccessFrom } from "../authors.js";
import { botDefaults } from "../bots/registry.js";
import { fetchFeedback, filterFeedback, findingsFromThreads } from "../feedback.js";
import { learningsFromThreads, type ThreadLearning } from "../learn-reply.js";
import { reviewReadKey } from "./new-feedback.js";
import { closedMessage, pullContext, pullOfTask } from "./pull-of-task.js";
import { ghSkipped, ghSuccess } from "./result.js";
import { reviewFindings } from "./review-findings.js";
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
  await recordNotices(pull.number, ignored, raw.partialReason, deps, ctx);

  const bots = botDefaults(deps.config.botSettings);
  // Allowed people's `@fixpoint learn …` replies to bot threads become learnings first, so the
  // threads they answer are dismissed below like any finding a learning answers (issue 16).
  const taught = await recordLearnReplies(
    learningsFromThreads(feedback.threads, { bots }),
    pull.number,
    deps,
    ctx,
  );
  const { threads, reviews, findings, origins } = collectFindings(feedback, bots);
  await warnUnknownFormats(
    [...threads.map((t) => t.botWarning), ...reviews.map((r) => r.botWarning)],
    pull.number,
    deps,
    ctx,
  );
  for (const r of feedback.reviews)
    await deps.store.setMarkerOnce(reviewReadKey(pull.number, r.id), { task: ctx.task.id }, deps.clock.now());
  const resolvedSources = feedback.threads.filter((t) => t.isResolved).map((t) => `pr:${t.id}`);
  const matcher = new LearningMatcher(await deps.store.listLearnings({ repo: ctx.task.repo }));
  const learned = findings.map((f) => matcher.match(f));
  const summary = ingestSummary(pull.number, {
    threads: threads.length,
    reviews: reviews.length,
    skipped: ignored.reduce((n, i) => n + i.count, 0),
    partialReason: raw.partialReason,
    taught,
  });
  return ghSuccess(
    summary,
    {
      type: "findings",
      source: `pr:${pull.number}`,
      findings,
      origins,
      resolvedSources,
      ...(learned.some((l) => l !== null) ? { learned } : {}),
    },
    // `wait-for-review`: the pr-rework workflow routes to `await-review` on this key.
    { context: { ...pullContext(pull), "github.wait_for_review": deps.config.waitForReview } },
  );
}

/** The findings of unresolved threads and review bodies, with who raised each. */
function collectFindings(
  feedback: Awaited<ReturnType<typeof filterFeedback>>["feedback"],
  bots: ReturnType<typeof botDefaults>,
) {
  const threads = findingsFromThreads(feedback.threads, { bots });
  const reviews = reviewFindings(feedback.reviews, bots);
  const findings: RawFinding[] = [...threads, ...reviews.map((r) => r.finding)].map(toRaw);
  const origins = [
    ...threads.map((t) => ({ source: t.source, ...(t.author ? { author: t.author } : {}) })),
    ...reviews.map((r) => r.origin),
  ];
  return { threads, reviews, findings, origins };
}

/** The stage's one-line summary: what was read, what was left out, what was learned. */
function ingestSummary(
  pr: number,
  n: {
    threads: number;
    reviews: number;
    skipped: number;
    partialReason?: string | undefined;
    taught: number;
  },
): string {
  const plural = (k: number, word: string) => `${k} ${word}${k === 1 ? "" : "s"}`;
  const parts = [`PR #${pr}: ${plural(n.threads, "unresolved thread")}`];
  if (n.reviews) parts.push(`${plural(n.reviews, "finding")} in review bodies`);
  if (n.skipped) parts.push(`${plural(n.skipped, "comment")} from other authors ignored`);
  if (n.partialReason) parts.push(n.partialReason);
  if (n.taught) parts.push(`${plural(n.taught, "learning")} from replies`);
  return parts.join("; ");
}

/** Events and notices for comments left out: from authors not allowed, or past a partial read. */
async function recordNotices(
  pr: number,
  ignored: Awaited<ReturnType<typeof filterFeedback>>["ignored"],
  partialReason: string | undefined,
  deps: GithubStageDeps,
  ctx: StageContext,
): Promise<void> {
  const events = [];
  const now = deps.clock.now();
  const base = { taskId: ctx.task.id, runId: ctx.runId };
  if (ignored.length > 0) {
    const count = ignored.reduce((n, i) => n + i.count, 0);
    events.push({
      ...base,
      type: "github.ignored_authors",
      data: { pr: pr, count, authors: ignored.map((i) => ({ ...i })) },
    });
    const message = `PR #${pr}: ${count} comment${count === 1 ? "" : "s"} from other authors ignored (not allowed to instruct agents)`;
    ctx.deps.listener({ type: "notice", taskId: ctx.task.id, message });
  }
  if (partialReason) {
    events.push({
      ...base,
      type: "github.feedback_partial",
      data: { pr: pr, reason: partialReason },
    });
    ctx.deps.listener({
      type: "notice",
      taskId: ctx.task.id,
      message: `PR #${pr}: ${partialReason}`,
    });
  }
  if (events.length) await deps.store.appendEvents(events, now);
}

/**
 * A configured bot wrote something no adapter recognises: the finding got the bot's default
 * severity; a warning event (and a notice) names the bot and the comment's first line, so the
 * user learns what to configure.
 */
async function warnUnknownFormats(
  warnings: ({ bot: string; firstLine: string } | undefined)[],
  pr: number,
  deps: GithubStageDeps,
  ctx: StageContext,
): Promise<void> {
  const unknown = warnings.filter((w): w is { bot: string; firstLine: string } => w !== undefined);
  if (unknown.length === 0) return;
  await deps.store.appendEvents(
    unknown.map((w) => ({
      taskId: ctx.task.id,
      runId: ctx.runId,
      type: "github.bot_format_unknown",
      data: { pr, bot: w.bot, firstLine: redactSecrets(w.firstLine) },
    })),
    deps.clock.now(),
  );
  for (const w of unknown) {
    const message = `PR #${pr}: a comment from ${w.bot} is in a format fixpoint does not know ("${oneLine(redactSecrets(w.firstLine), 80)}"); it was given the bot's default severity — set one with github { bots { ${w.bot} severity="P…" } }`;
    ctx.deps.listener({ type: "notice", taskId: ctx.task.id, message });
  }
}

/**
 * Records each learn reply once (marker `gh-learn:<pr>:<comment>`), scoped to its thread's file,
 * with the bot's finding as its origin. Returns how many were new.
 */
async function recordLearnReplies(
  replies: ThreadLearning[],
  pr: number,
  deps: GithubStageDeps,
  ctx: StageContext,
): Promise<number> {
  let recorded = 0;
  for (const r of replies) {
    const now = deps.clock.now();
    const f = r.finding;
    const added = await deps.store.transaction(async (tx) => {
      const key = `gh-learn:${pr}:${r.commentId ?? r.threadId}`;
      if (!(await tx.setMarkerOnce(key, { task: ctx.task.id, thread: r.threadId }, now))) return false;
      await tx.addLearning({
        repo: ctx.task.repo,
        text: redactSecrets(r.text),
        scope: f.file,
        source: { kind: "pr-reply", taskId: ctx.task.id, author: r.author },
        origin: learningOrigin(f),
        createdAt: now,
        createdBy: r.author,
      });
      return true;
    });
    if (added) recorded++;
  }
  return recorded;
}

/** Only the RawFinding fields: the effect is stored in checkpoints, extra keys would ride along. */
function toRaw(f: RawFinding): RawFinding {
  const { severity, category, title, body, file, lineStart, lineEnd, suggestedFix } = f;
  return { severity, category, title, body, file, lineStart, lineEnd, suggestedFix };
}
