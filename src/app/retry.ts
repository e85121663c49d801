import { z } from "zod";
import { isApproval } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { loadWorkflow } from "../workflow/loader.js";
import type { AppContext } from "./context.js";
import type { Restart } from "./resume.js";
import { assertRestartable, lastRunState, nextRunState, putCheckpoint } from "./run-state.js";
import { requireTask } from "./task-ref.js";
import { parseInput } from "./validate.js";

const Input = z.object({ task: z.string().min(1), force: z.boolean().default(false) }).strict();
export type RetryInput = z.input<typeof Input>;

/**
 * `retry`: a new run from the stage the last run stopped at (or the start), with fresh agent
 * sessions and the same registry. A task that ended approved is not rerun without `force`: a
 * retry would implement it again on top of the approved work. One transaction after the workflow
 * is read.
 */
export async function retryTask(
  ctx: Pick<AppContext, "store" | "clock" | "actor">,
  raw: RetryInput,
): Promise<Restart> {
  const input = parseInput("retry", Input, raw);
  const first = await requireTask(ctx.store, input.task);
  const workflow = await loadWorkflow(first.workflow, first.repo);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const task = await requireTask(tx, input.task);
    const tookOver = assertRestartable(task, now);
    if (!input.force && (task.status === "completed" || isApproval(task.finalVerdict))) {
      throw new FixpointError(
        "usage",
        `${task.id} already ended ${task.finalVerdict ?? task.status}; a retry would run it again from scratch (pass --force to do that anyway)`,
      );
    }
    const last = await lastRunState(tx, task).catch((e: unknown) => {
      // A checkpoint that cannot be read is exactly what a fresh start recovers from.
      if (e instanceof FixpointError && e.code === "checkpoint") return null;
      throw e;
    });
    const from = last ? (last.state.stoppedAt ?? last.state.next ?? workflow.start) : workflow.start;
    const run = await tx.createRun(task.id, "retry", {}, now);
    if (last) {
      const state = nextRunState(last.state, { next: from, sessions: {} });
      await putCheckpoint(tx, {
        task,
        runId: run.id,
        state,
        event: { type: "run.retry", data: { from } },
        patch: { currentStage: from },
        now,
      });
    }
    const updated = await tx.updateTask(task.id, { status: "queued", finalVerdict: null, reason: null }, now);
    await tx.appendEvents(
      [
        {
          taskId: task.id,
          runId: run.id,
          type: "task.retried",
          data: { by: ctx.actor, at: new Date(now).toISOString(), from, force: input.force, tookOver },
        },
      ],
      now,
    );
    const message = `${task.id}: new run ${run.id} from stage ${from}${last ? "" : " (fresh start)"}`;
    return { task: updated, message, tookOver };
  });
}
