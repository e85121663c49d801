import type { AgentResult } from "../../domain/agent.js";
import type { FailureClass, Finding, ReviewOutput } from "../../domain/types.js";
import { errorMessage } from "../../errors.js";
import { fenceUntrusted } from "../../findings/fence.js";
import { effectiveVerdict, honourChangesRequested, parseReviewOutput } from "../../findings/review-parse.js";
import { REVIEW_OUTPUT_SCHEMA } from "../../findings/schemas.js";
import { byteSize } from "../../findings/select.js";
import { redactSecrets } from "../../util/redact.js";
import { trimTrailing } from "../../util/trim.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";
import { reviewSummary } from "../effects.js";
import { diffShare, promptBudgetFor } from "../prompt-budget.js";
import type { RenderedPrompt } from "../prompts.js";
import { type Parsed, runAgentTurn, turnFields } from "./agent-turn.js";
import { boundDiffWithin } from "./diff-bound.js";
import { withoutBlobIds } from "./diff-stable.js";
import { agentFailure } from "./failure.js";
import { agentOf, priorWithin } from "./findings-budget.js";
import { REVIEW_FORMAT } from "./formats.js";
import { type ReviewLearnings, reviewLearnings, splitLearned } from "./learnings-section.js";

/**
 * A `review` stage. The reviewer sees the whole diff against the base branch every cycle, the
 * changes since its own last review, and every prior finding with its id; it returns the JSON of
 * SPEC §7. It changes nothing, so it always starts a fresh session.
 */
export const reviewHandler: StageHandler = {
  async run(stage: StageDef, ctx: StageContext): Promise<StageResult> {
    const { git } = ctx.deps;
    const head = await git.headSha(ctx.workdir);
    const whole = await git.diff(ctx.workdir, ctx.task.baseBranch, { mergeBase: true });
    const last = ctx.state.reviewedAt[stage.id];
    const since = last ? await changesSince(ctx, last, head) : "";
    const prior = ctx.registry.forReview();
    // Learnings in scope of the diff's files, after the earlier findings (docs/prompts.md).
    const learnings = await reviewLearnings(stage, ctx, whole);
    const render = reviewRenderer(stage, ctx, learnings, !last);
    const budget = promptBudgetFor(ctx.deps.config, agentOf(stage, ctx));
    let share: number;
    try {
      share = diffShare(budget, byteSize((await render("", "", "")).text));
    } catch (e) {
      // A budget too small to review in blocks approval like any review that could not be done.
      const failure = { failureClass: "config" as const, failureReason: errorMessage(e) };
      return failedReview(stage, { ...NO_TURN, headBefore: head, headAfter: head }, failure);
    }
    // The diffs count against the prompt budget too: cut at file boundaries within their share.
    const show = `fixpoint diff ${ctx.task.id}`;
    const sinceText = last ? boundDiffWithin(withoutBlobIds(since), Math.floor(share / 4), show).text : "";
    const wholeText = boundDiffWithin(withoutBlobIds(whole), share - byteSize(sinceText), show).text;
    const renderWith = (priorFindings: string) => render(wholeText, sinceText, priorFindings);
    const asked = await priorWithin(stage, ctx, prior, async (section) => (await renderWith(section)).text);
    const rendered = await renderWith(asked.text);
    const turn = await runAgentTurn<ReviewOutput>(stage, ctx, {
      purpose: "review",
      prompt: rendered.text,
      cacheBreaks: rendered.cacheBreaks,
      schema: REVIEW_OUTPUT_SCHEMA,
      continueSession: false,
      parse: parseReview,
    });
    const base = {
      ...turnFields(turn),
      headBefore: head,
      headAfter: head,
    };
    if (turn.parsed?.ok) {
      return reviewedResult(stage, ctx, base, turn.parsed.value, {
        prior,
        learnings,
        expectedIds: asked.shown,
        head,
      });
    }
    // Unreadable or failed review: CHANGES_REQUESTED by default (seed 001), nothing else changes.
    const failure = turn.result.ok
      ? { failureClass: "unparsable" as const, failureReason: "review output unparsable" }
      : agentFailure(turn.result);
    return failedReview(stage, base, failure);
  },
};

/** The changes since the reviewer's last review of this stage, at `last`. */
async function changesSince(ctx: StageContext, last: string, head: string): Promise<string> {
  return last === head ? "(no changes since your last review)" : await ctx.deps.git.diff(ctx.workdir, last);
}

/** The reviewer's reply as SPEC §7 output, or why it cannot be read. */
function parseReview(r: AgentResult): Parsed<ReviewOutput> {
  const p = parseReviewOutput(r.text, r.structured);
  return p.ok ? { ok: true, value: p.output } : { ok: false, error: p.error };
}

/**
 * Renders the review prompt from the diffs and the earlier findings. Cache-friendly layout
 * (docs/prompts.md): everything up to the reviewer's focus is the same for every reviewer of the
 * cycle, and the diff keeps git's order so that a later cycle repeats the earlier cycle's bytes up
 * to the first line that changed since (blob ids, which change with any edit and stand before a
 * file's content, are left out). The earlier findings are chosen within the prompt budget (issue 10).
 */
function reviewRenderer(
  stage: StageDef,
  ctx: StageContext,
  learnings: ReviewLearnings,
  firstReview: boolean,
): (diff: string, sinceText: string, priorFindings: string) => Promise<RenderedPrompt> {
  return async (diff, sinceText, priorFindings) => {
    const r = await ctx.deps.prompts.renderPrompt(stage.prompt ?? "review", {
      task_id: ctx.task.id,
      title: ctx.task.title,
      prompt: ctx.task.prompt,
      cycle: String(ctx.state.cycle),
      stage_id: stage.id,
      diff: fenceUntrusted("diff against the base branch", diff),
      changes_since_last_review: firstReview
        ? "This is the first review of this task."
        : fenceUntrusted("changes since the last review", sinceText),
      prior_findings: priorFindings,
      output_format: REVIEW_FORMAT,
      review_context: `Review cycle ${ctx.state.cycle}, stage \`${stage.id}\`.`,
      learnings: learnings.text,
    });
    // A project template without {{learnings}} still tells them, at the end (the least shared part).
    return learnings.shown.length > 0 && !r.text.includes(learnings.text)
      ? { ...r, text: `${trimTrailing(r.text, "\n")}\n\n# Learnings\n\n${learnings.text}\n` }
      : r;
  };
}

/** The result of a review whose output was read: its findings redacted, learned ones set apart. */
function reviewedResult(
  stage: StageDef,
  ctx: StageContext,
  base: TurnFields,
  parsed: ReviewOutput,
  asked: { prior: Finding[]; learnings: ReviewLearnings; expectedIds: string[]; head: string },
): StageResult {
  const blockingSeverity = ctx.deps.config.defaults.blockingSeverity;
  const knownIds = asked.prior.map((f) => f.id);
  const raised = honourChangesRequested(redactReview(parsed), knownIds, blockingSeverity, stage.id);
  // Findings a learning answers are recorded dismissed and never reach the fixer (issue 16).
  const { kept, learned } = splitLearned(raised.findings, asked.learnings.matcher);
  const output = { ...raised, findings: kept };
  const approved = output.verdict === "APPROVED" || output.verdict === "APPROVED_WITH_FOLLOWUPS";
  const verdict = effectiveVerdict(output, blockingSeverity);
  const resolved = output.prior.filter((p) => p.status === "resolved").length;
  return {
    ...base,
    summary: `${reviewSummary(verdict, output, resolved)}${learned.length ? ` (${learned.length} dismissed by learnings)` : ""}`,
    outcome: approved && output.findings.length === 0 ? "success" : approved ? "partial_success" : "fail",
    effect: {
      type: "review",
      stageId: stage.id,
      output,
      expectedIds: asked.expectedIds,
      head: asked.head,
      ...(learned.length ? { learned } : {}),
    },
  };
}

/** What a stage result says about the agent turn behind it. */
type TurnFields = Pick<
  StageResult,
  "usage" | "costUsd" | "sessionId" | "agent" | "attempts" | "headBefore" | "headAfter"
>;

const NO_TURN = {
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  costUsd: 0,
  sessionId: null,
  agent: null,
  attempts: 0,
};

/** A review that could not be done: CHANGES_REQUESTED, marked failed so it blocks approval. */
function failedReview(
  stage: StageDef,
  base: TurnFields,
  failure: { failureClass: FailureClass; failureReason: string },
): StageResult {
  const fallback: ReviewOutput = {
    verdict: "CHANGES_REQUESTED",
    summary: failure.failureReason,
    findings: [],
    prior: [],
  };
  return {
    ...base,
    outcome: "fail",
    ...failure,
    summary: `CHANGES_REQUESTED  (${failure.failureReason})`,
    effect: {
      type: "review",
      stageId: stage.id,
      output: fallback,
      expectedIds: [],
      head: null,
      failed: true,
    },
  };
}

/** Review text is stored and shown to other agents: keys and tokens it quotes are redacted first. */
function redactReview(output: ReviewOutput): ReviewOutput {
  const r = (t: string) => redactSecrets(t);
  return {
    ...output,
    summary: r(output.summary),
    findings: output.findings.map((f) => ({
      ...f,
      title: r(f.title),
      body: r(f.body),
      suggestedFix: f.suggestedFix === null ? null : r(f.suggestedFix),
    })),
    prior: output.prior.map((p) => (p.note === undefined ? p : { ...p, note: r(p.note) })),
  };
}
