import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";

const nothing = (): StageResult => ({
  outcome: "success",
  effect: { type: "none" },
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  costUsd: 0,
  attempts: 0,
});

/** Decisions choose the next stage after they are recorded; exits end the run. Neither does work. */
export const decisionHandler: StageHandler = { run: async () => nothing() };
export const exitHandler: StageHandler = { run: async () => nothing() };

/** Marker key under which `fixpoint approve/reject` leaves the answer for a human stage. */
export function humanMarkerKey(taskId: string, stageId: string): string {
  return `human:${taskId}:${stageId}`;
}

/**
 * A `human` stage pauses the run until `fixpoint approve` or `reject` answers; the answer is a
 * marker, consumed when the run continues.
 */
export const humanHandler: StageHandler = {
  async run(stage: StageDef, ctx: StageContext): Promise<StageResult> {
    const key = humanMarkerKey(ctx.task.id, stage.id);
    const answer = (await ctx.deps.store.getMarker(key)) as { decision?: string; reason?: string } | null;
    if (!answer || typeof answer !== "object" || !answer.decision) {
      return {
        ...nothing(),
        outcome: "retry",
        pause: {
          reason: `waiting for a human at stage ${stage.id}: run \`fixpoint approve ${ctx.task.id}\` or \`fixpoint reject ${ctx.task.id} --reason …\``,
        },
      };
    }
    await ctx.deps.store.setMarker(key, null, ctx.deps.clock.now());
    const approved = answer.decision === "approved";
    return {
      ...nothing(),
      outcome: approved ? "success" : "fail",
      failureReason: approved ? undefined : `rejected by a human: ${answer.reason ?? "no reason given"}`,
      context: { [`${stage.id}.decision`]: answer.decision, [`${stage.id}.reason`]: answer.reason ?? null },
      summary: approved ? "approved" : `rejected: ${answer.reason ?? ""}`,
    };
  },
};
