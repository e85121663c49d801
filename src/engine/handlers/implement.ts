import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";
import { runAgentTurn, turnFields } from "./agent-turn.js";
import { commitStageWork, commitsEvent } from "./commit-work.js";
import { agentFailure } from "./failure.js";

/** An `agent` stage: the implementer works in the worktree; its changes are committed. */
export const implementHandler: StageHandler = {
  async run(stage: StageDef, ctx: StageContext): Promise<StageResult> {
    const headBefore = await ctx.deps.git.headSha(ctx.workdir);
    const prompt = await ctx.deps.prompts.render(stage.prompt ?? "implement", {
      task_id: ctx.task.id,
      title: ctx.task.title,
      prompt: ctx.task.prompt,
      branch: ctx.task.branch ?? "",
      base: ctx.task.baseBranch,
    });
    const turn = await runAgentTurn(stage, ctx, { purpose: "implement", prompt, continueSession: true });
    const message = turn.result.ok
      ? `${ctx.task.title} — implementation`
      : `WIP: ${ctx.task.title} — ${stage.id} stopped (${turn.result.failure?.message ?? "failed"})`;
    const commit = await commitStageWork(ctx, headBefore, message);
    const base = {
      ...turnFields(turn),
      effect: { type: "none" as const },
      headBefore: commit.headBefore,
      headAfter: commit.headAfter,
      events: commitsEvent(stage.id, commit),
    };
    if (!turn.result.ok) return { ...base, outcome: "fail", ...agentFailure(turn.result) };
    const n = commit.agentCommits.length + (commit.committed ? 1 : 0);
    return { ...base, outcome: "success", summary: `done, ${n} commit${n === 1 ? "" : "s"}` };
  },
};
