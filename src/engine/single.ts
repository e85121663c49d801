import { errorMessage } from "../errors.js";
import type { StageDef } from "../workflow/types.js";
import type { StageContext, StageResult } from "./deps.js";
import { BUILTIN_HANDLERS } from "./handlers/index.js";

/**
 * Runs one non-parallel stage through the handler registry. An exception from a handler (a git
 * failure, a missing prompt template) becomes a failed stage with its message, never a crash of
 * the worker.
 */
export async function runSingleStage(stage: StageDef, ctx: StageContext): Promise<StageResult> {
  const handler = ctx.deps.extraHandlers?.[stage.kind] ?? BUILTIN_HANDLERS[stage.kind];
  if (!handler) {
    return failed(
      `no handler for stage kind \`${stage.kind}\`${stage.kind === "github" ? " (configure `github` in fixpoint.kdl)" : ""}`,
      "config",
    );
  }
  try {
    return await handler.run(stage, ctx);
  } catch (e) {
    return failed(`${stage.id}: ${errorMessage(e)}`, "internal");
  }
}

function failed(reason: string, failureClass: "config" | "internal"): StageResult {
  return {
    outcome: "fail",
    failureClass,
    failureReason: reason,
    effect: { type: "none" },
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0,
    attempts: 0,
  };
}
