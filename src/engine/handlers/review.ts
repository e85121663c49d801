import type { FailureClass, ReviewOutput } from "../../domain/types.js";
import { errorMessage } from "../../errors.js";
import { fenceUntrusted } from "../../findings/fence.js";
import { effectiveVerdict, honourChangesRequested, parseReviewOutput } from "../../findings/review-parse.js";
import { REVIEW_OUTPUT_SCHEMA } from "../../findings/schemas.js";
import { byteSize } from "../../findings/select.js";
import { redactSecrets } from "../../util/redact.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";
import { reviewSummary } from "../effects.js";
import { diffShare, promptBudgetFor } from "../prompt-budget.js";
import { runAgentTurn } from "./agent-turn.js";
import { boundDiffWithin } from "./diff-bound.js";
import { withoutBlobIds } from "./diff-stable.js";
import { agentFailure } from "./failure.js";
import { agentOf, priorWithin } from "./findings-budget.js";
import { REVIEW_FORMAT } from "./formats.js";
import { reviewLearnings, splitLearned } from "./learnings-section.js";

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
    const since = last
      ? last === head
        ? "(no changes since your last review)"
        : await git.diff(ctx.workdir, last)
      : "";
    const prior = ctx.registry.forReview();
    // Learnings in scope of the diff's files, after the earlier findings (docs/prompts.md).
    const learnings = await reviewLearnings(stage, ctx, whole);
    // Cache-friendly layout (docs/prompts.md): everything up to the reviewer's focus is the same
    // for every reviewer of the cycle, and the diff keeps git's order so that a later cycle
    // repeats the earlier cycle's bytes up to the first line that changed since (blob ids, which
    // change with any edit and stand before a file's content, are left out). The earlier
    // findings are chosen within the prompt budget (issue 10).
    // The diffs count against the prompt budget too: cut at file boundaries within their share.
    const render = async (diff: string, sinceText: string, priorFindings: string) => {
      const r = await ctx.deps.prompts.renderPrompt(stage.prompt ?? "review", {
        task_id: ctx.task.id,
        title: ctx.task.title,
        prompt: ctx.task.prompt,
        cycle: String(ctx.state.cycle),
        stage_id: stage.id,
        diff: fenceUntrusted("diff against the base branch", diff),
        changes_since_last_review: last
          ? fenceUntrusted("changes since the last review", sinceText)
          : "This is the first review of this task.",
        prior_findings: priorFindings,
        output_format: REVIEW_FORMAT,
        review_context: `Review cycle ${ctx.state.cycle}, stage \`${stage.id}\`.`,
        learnings: learnings.text,
      });
      // A project template without {{learnings}} still tells them, at the end (the least shared part).
      return learnings.shown.length > 0 && !r.text.includes(learnings.text)
        ? { ...r, text: `${r.text.replace(/\n*$/, "")}\n\n# Learnings\n\n${learnings.text}\n` }
        : r;
    };
    const budget = promptBudgetFor(ctx.deps.config, agentOf(stage, ctx));
    let share: number;
    try {
      share = diffShare(budget, byteSize((await render("", "", "")).text));
    } catch (e) {
      // A budget too small to review in blocks approval like any review that could not be done.
      const failure = { failureClass: "config" as const, failureReason: errorMessage(e) };
      return failedReview(stage, { ...NO_TURN, headBefore: head, headAfter: head }, failure);
    }
    const show = `fixpoint diff ${ctx.task.id}`;
    const sinceText = last ? boundDiffWithin(withoutBlobIds(since), Math.floor(share / 4), show).text : "";
    const wholeText = boundDiffWithin(withoutBlobIds(whole), share - byteSize(sinceText), show).text;
    const renderWith = (priorFindings: string) => render(wholeText, sinceText, priorFindings);
    const asked = await priorWithin(stage, ctx, prior, async (section) => (await renderWith(section)).text);
    const rendered = await renderWith(asked.text);
    const prompt = rendered.text;
    const turn = await runAgentTurn<ReviewOutput>(stage, ctx, {
      purpose: "review",
      prompt,
      cacheBreaks: rendered.cacheBreaks,
      schema: REVIEW_OUTPUT_SCHEMA,
      continueSession: false,
      parse: (r) => {
        const p = parseReviewOutput(r.text, r.structured);
        return p.ok ? { ok: true, value: p.output } : { ok: false, error: p.error };
      },
    });
    const base = {
      usage: turn.usage,
      costUsd: turn.costUsd,
      sessionId: turn.sessionId,
      agent: turn.agent,
      attempts: turn.attempts,
      headBefore: head,
      headAfter: head,
    };
    if (turn.parsed?.ok) {
      const blockingSeverity = ctx.deps.config.defaults.blockingSeverity;
      const knownIds = prior.map((f) => f.id);
      const raised = honourChangesRequested(
        redactReview(turn.parsed.value),
        knownIds,
        blockingSeverity,
        stage.id,
      );
      // Findings a learning answers are recorded dismissed and never reach the fixer (issue 16).
      const { kept, learned } = splitLearned(raised.findings, learnings.matcher);
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
          expectedIds: asked.shown,
          head,
          ...(learned.length ? { learned } : {}),
        },
      };
    }
    // Unreadable or failed review: CHANGES_REQUESTED by default (seed 001), nothing else changes.
    const failure = turn.result.ok
      ? { failureClass: "unparsable" as const, failureReason: "review output unparsable" }
      : agentFailure(turn.result);
    return failedReview(stage, base, failure);
  },
};

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
  base: Pick<
    StageResult,
    "usage" | "costUsd" | "sessionId" | "agent" | "attempts" | "headBefore" | "headAfter"
  >,
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
