import type { Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";

/**
 * Cancels a queued or running task (its worker sees the status on its next heartbeat, stops the
 * running stage and commits its work). One transaction: the status and the event with who and when.
 */
export async function cancelTask(
  ctx: Pick<AppContext, "store" | "clock" | "actor">,
  ref: string,
): Promise<{ task: Task; was: Task["status"] }> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const task = await requireTask(tx, ref);
    if (task.status === "completed" || task.status === "cancelled") {
      throw new FixpointError("usage", `${task.id} is already ${task.status}`);
    }
    const updated = await tx.updateTask(
      task.id,
      { status: "cancelled", reason: `cancelled by ${ctx.actor}` },
      now,
    );
    await tx.appendEvents(
      [
        {
          taskId: task.id,
          runId: null,
          type: "task.cancelled",
          data: { by: ctx.actor, at: new Date(now).toISOString(), was: task.status },
        },
      ],
      now,
    );
    return { task: updated, was: task.status };
  });
}
