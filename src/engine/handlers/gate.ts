import { gateFinding } from "../../findings/gate-finding.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";
import type { GateResultData } from "../effects.js";

/**
 * A `gate` stage runs every configured gate (or the ones the stage names) in the worktree, as
 * the configured shell string — nothing from a review or an agent is ever put into the command.
 * A failing gate becomes a finding; a passing gate resolves its own findings.
 */
export const gateHandler: StageHandler = {
  async run(stage: StageDef, ctx: StageContext): Promise<StageResult> {
    const configured = ctx.deps.config.gates;
    const gates = stage.gates?.length ? configured.filter((g) => stage.gates?.includes(g.name)) : configured;
    const results: GateResultData[] = [];
    for (const gate of gates) {
      const timeoutMs = Math.min(gate.timeoutMs, stage.timeoutMs ?? Number.POSITIVE_INFINITY);
      const r = await ctx.deps.runner.run({
        command: "sh",
        args: ["-c", gate.run],
        cwd: ctx.workdir,
        env: { ...ctx.deps.env, FIXPOINT_TASK_ID: ctx.task.id },
        timeoutMs,
        signal: ctx.signal,
        groups: ctx.deps.groups,
      });
      if (r.cancelled) break;
      const passed = r.exitCode === 0 && !r.timedOut;
      results.push({
        name: gate.name,
        passed,
        finding: passed ? null : gateFinding(gate.name, r.exitCode, r.stdout, r.stderr, r.timedOut),
      });
    }
    const failed = results.filter((g) => !g.passed);
    return {
      outcome: failed.length === 0 ? "success" : "fail",
      failureClass: failed.length ? "exit_nonzero" : undefined,
      failureReason: failed.length ? `gate ${failed.map((g) => g.name).join(", ")} failed` : undefined,
      effect: { type: "gates", results },
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0,
      attempts: 1,
    };
  },
};
