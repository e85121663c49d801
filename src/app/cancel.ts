import { heldByLiveWorker, type Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";

/**
 * Cancels a queued or running task (its worker sees the status on its next heartbeat, stops the
 * running stage and commits its work). One transaction: the status and the event with who and when.
 * When no live worker holds the task (queued, or its worker died and its lease ran out), nobody
 * else will end its open run, so the same transaction marks that run interrupted (resumable).
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
    const reason = `cancelled by ${ctx.actor}`;
    const updated = await tx.updateTask(task.id, { status: "cancelled", reason }, now);
    if (!heldByLiveWorker(task, now)) {
      for (const run of await tx.listRuns(task.id)) {
        if (run.status === "running")
          await tx.updateRun(run.id, { status: "interrupted", reason, endedAt: now }, now);
      }
    }
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
