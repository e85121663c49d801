import type { AgentResult } from "../../domain/agent.js";
import type { FixReport } from "../../domain/types.js";
import { parseFixReport } from "../../findings/fix-parse.js";
import { FIX_REPORT_SCHEMA } from "../../findings/schemas.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";
import type { RenderedPrompt } from "../prompts.js";
import { runAgentTurn, type TurnOutcome, turnFields } from "./agent-turn.js";
import { type CommitOutcome, commitStageWork, commitsEvent } from "./commit-work.js";
import { agentFailure } from "./failure.js";
import { outstandingWithin } from "./findings-budget.js";
import { renderFollowup } from "./followup.js";
import { FIX_FORMAT } from "./formats.js";

/**
 * A `fix` stage: the fixer gets every open and deferred finding (one "Outstanding Review Findings"
 * section) and must report on each id. Its changes end in `Address review feedback (cycle N)`.
 * After `resume` of a run that ended on review failure, the first fix gets exactly the stored
 * blocking findings as a follow-up prompt in the fixer's previous session (seed 002).
 */
export const fixHandler: StageHandler = {
  async run(stage: StageDef, ctx: StageContext): Promise<StageResult> {
    const followup = ctx.state.followup;
    const { section, shown } = await findingsToShow(stage, ctx);
    const headBefore = await ctx.deps.git.headSha(ctx.workdir);
    if (shown.length === 0) return nothingToFix(headBefore);
    const template = await renderFixPrompt(stage, ctx, section);
    const turn = await runAgentTurn<FixReport>(stage, ctx, {
      purpose: "fix",
      prompt: template.text,
      cacheBreaks: template.cacheBreaks,
      schema: FIX_REPORT_SCHEMA,
      continueSession: true,
      sessionOverride: followup
        ? (ctx.state.sessions[stage.agent ?? "fixer"] ?? ctx.state.sessions.implementer)
        : undefined,
      parse: (r) => {
        const p = parseFixReport(r.text, r.structured);
        return p.ok ? { ok: true, value: p.report } : { ok: false, error: p.error };
      },
    });
    const commit = await commitStageWork(ctx, headBefore, fixCommitMessage(ctx, turn.result));
    return fixResult(stage, turn, commit, shown);
  },
};

/** The fix prompt around one findings section: the follow-up template after a resume. */
function renderFixPrompt(stage: StageDef, ctx: StageContext, section: string): Promise<RenderedPrompt> {
  return ctx.deps.prompts.renderPrompt(ctx.state.followup ? "fix-followup" : (stage.prompt ?? "fix"), {
    task_id: ctx.task.id,
    title: ctx.task.title,
    prompt: ctx.task.prompt,
    cycle: String(ctx.state.cycle),
    outstanding_findings: section,
    output_format: FIX_FORMAT,
  });
}

/**
 * The findings section the fixer gets and the ids it must report on: the resume follow-up's
 * findings still in the registry, or the outstanding ones that fit the prompt budget.
 */
async function findingsToShow(
  stage: StageDef,
  ctx: StageContext,
): Promise<{ section: string; shown: string[] }> {
  const followup = ctx.state.followup;
  if (followup) {
    return {
      section: renderFollowup(followup),
      shown: followup.map((i) => i.id).filter((id) => ctx.registry.get(id)),
    };
  }
  const outstanding = ctx.registry.forFix();
  const rendered = await outstandingWithin(
    stage,
    ctx,
    outstanding,
    async (section) => (await renderFixPrompt(stage, ctx, section)).text,
  );
  // Findings left out to fit the prompt budget were not shown, so they are not "no report".
  const omitted = new Set(rendered.omitted);
  return { section: rendered.text, shown: outstanding.map((f) => f.id).filter((id) => !omitted.has(id)) };
}

/** The result of a fix stage with no finding to show: the fixer is not called. */
function nothingToFix(headBefore: string): StageResult {
  return {
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0,
    attempts: 0,
    outcome: "skipped",
    effect: { type: "none" },
    summary: "nothing to fix",
    headBefore,
    headAfter: headBefore,
  };
}

/**
 * The fix commit's message. A PR rework task restarts its fix cycles at 1: its message names the
 * PR's rework cycle too, so two cycles never leave two commits with the same message.
 */
function fixCommitMessage(ctx: StageContext, result: AgentResult): string {
  const { prNumber, reworkCycle } = ctx.task.meta;
  const cycle =
    prNumber !== undefined && reworkCycle !== undefined
      ? `PR #${prNumber} rework cycle ${reworkCycle}, fix cycle ${ctx.state.cycle}`
      : `cycle ${ctx.state.cycle}`;
  return result.ok
    ? `Address review feedback (${cycle})`
    : `WIP: Address review feedback (${cycle}) — stopped (${result.failure?.message ?? "failed"})`;
}

/** The stage's result from the fixer's turn and the commit of its work. */
function fixResult(
  stage: StageDef,
  turn: TurnOutcome<FixReport>,
  commit: CommitOutcome,
  shown: string[],
): StageResult {
  const commitSha = commit.headAfter !== commit.headBefore ? commit.headAfter : null;
  const base = {
    ...turnFields(turn),
    headBefore: commit.headBefore,
    headAfter: commit.headAfter,
    events: commitsEvent(stage.id, commit),
  };
  if (!turn.result.ok) {
    return { ...base, outcome: "fail", ...agentFailure(turn.result), effect: { type: "none" } };
  }
  if (turn.parsed && !turn.parsed.ok) {
    // The fixer worked but its report is unreadable: every shown finding is "no report".
    return {
      ...base,
      outcome: "partial_success",
      failureClass: "unparsable",
      failureReason: "fix report unparsable",
      effect: {
        type: "fix",
        report: { summary: "", entries: [] },
        shownIds: shown,
        commitSha,
        parseError: turn.parsed.error,
      },
    };
  }
  const report = turn.parsed?.ok ? turn.parsed.value : { summary: "", entries: [] };
  return { ...base, outcome: "success", effect: { type: "fix", report, shownIds: shown, commitSha } };
}
