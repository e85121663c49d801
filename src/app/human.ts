import { z } from "zod";
import type { Task } from "../domain/types.js";
import { humanMarkerKey } from "../engine/handlers/simple.js";
import { FixpointError } from "../errors.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";
import { parseInput } from "./validate.js";

const Input = z
  .object({
    task: z.string().min(1),
    reason: z.string().trim().min(1, "a rejection needs a reason").optional(),
  })
  .strict();

export interface HumanDecision {
  task: Task;
  /** The `human` stage that was waiting. */
  stage: string;
}

/** Approves the task's waiting `human` stage; the task is queued again. */
export function approve(
  ctx: Pick<AppContext, "store" | "clock" | "actor">,
  input: { task: string; reason?: string },
): Promise<HumanDecision> {
  return decide(ctx, "approved", parseInput("approve", Input, input));
}

/** Rejects the task's waiting `human` stage with a reason; the task is queued again. */
export function reject(
  ctx: Pick<AppContext, "store" | "clock" | "actor">,
  input: { task: string; reason: string },
): Promise<HumanDecision> {
  const parsed = parseInput("reject", Input.required({ reason: true }), input);
  return decide(ctx, "rejected", parsed);
}

/** The answer (a marker the stage reads), the re-queue and the event: one transaction. */
async function decide(
  ctx: Pick<AppContext, "store" | "clock" | "actor">,
  decision: "approved" | "rejected",
  input: { task: string; reason?: string },
): Promise<HumanDecision> {
  const now = ctx.clock.now();
  const reason = input.reason ?? null;
  return ctx.store.transaction(async (tx) => {
    const task = await requireTask(tx, input.task);
    const stage = task.currentStage;
    if (task.status !== "needs_human" || !stage) {
      throw new FixpointError("usage", `${task.id} is not waiting for a human (status ${task.status})`);
    }
    await tx.setMarker(humanMarkerKey(task.id, stage), { decision, reason, by: ctx.actor }, now);
    const updated = await tx.updateTask(task.id, { status: "queued", finalVerdict: null, reason: null }, now);
    await tx.appendEvents(
      [
        {
          taskId: task.id,
          runId: null,
          type: `human.${decision}`,
          data: { stage, by: ctx.actor, at: new Date(now).toISOString(), reason },
        },
      ],
      now,
    );
    return { task: updated, stage };
  });
}
