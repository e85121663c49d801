import type { FixReport } from "../../domain/types.js";
import { parseFixReport } from "../../findings/fix-parse.js";
import { FIX_REPORT_SCHEMA } from "../../findings/schemas.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";
import { runAgentTurn } from "./agent-turn.js";
import { commitStageWork, commitsEvent } from "./commit-work.js";
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
    const outstanding = ctx.registry.forFix();
    const renderWith = (section: string) =>
      ctx.deps.prompts.renderPrompt(followup ? "fix-followup" : (stage.prompt ?? "fix"), {
        task_id: ctx.task.id,
        title: ctx.task.title,
        prompt: ctx.task.prompt,
        cycle: String(ctx.state.cycle),
        outstanding_findings: section,
        output_format: FIX_FORMAT,
      });
    const rendered = followup
      ? null
      : await outstandingWithin(stage, ctx, outstanding, async (section) => (await renderWith(section)).text);
    // Findings left out to fit the prompt budget were not shown, so they are not "no report".
    const omitted = new Set(rendered?.omitted ?? []);
    const shown = followup
      ? followup.map((i) => i.id).filter((id) => ctx.registry.get(id))
      : outstanding.map((f) => f.id).filter((id) => !omitted.has(id));
    const headBefore = await ctx.deps.git.headSha(ctx.workdir);
    const none = { usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, costUsd: 0, attempts: 0 };
    if (shown.length === 0) {
      return {
        ...none,
        outcome: "skipped",
        effect: { type: "none" },
        summary: "nothing to fix",
        headBefore,
        headAfter: headBefore,
      };
    }
    const section = followup ? renderFollowup(followup) : (rendered?.text ?? "");
    const template = await renderWith(section);
    const prompt = template.text;
    const turn = await runAgentTurn<FixReport>(stage, ctx, {
      purpose: "fix",
      prompt,
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
    // A PR rework task restarts its fix cycles at 1: its message names the PR's rework cycle too,
    // so two cycles never leave two commits with the same message.
    const { prNumber, reworkCycle } = ctx.task.meta;
    const cycle =
      prNumber !== undefined && reworkCycle !== undefined
        ? `PR #${prNumber} rework cycle ${reworkCycle}, fix cycle ${ctx.state.cycle}`
        : `cycle ${ctx.state.cycle}`;
    const message = turn.result.ok
      ? `Address review feedback (${cycle})`
      : `WIP: Address review feedback (${cycle}) — stopped (${turn.result.failure?.message ?? "failed"})`;
    const commit = await commitStageWork(ctx, headBefore, message);
    const commitSha = commit.headAfter !== headBefore ? commit.headAfter : null;
    const base = {
      usage: turn.usage,
      costUsd: turn.costUsd,
      sessionId: turn.sessionId,
      agent: turn.agent,
      attempts: turn.attempts,
      headBefore,
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
  },
};
