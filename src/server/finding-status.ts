import type { AppContext } from "../app/context.js";
import { requireTask } from "../app/task-ref.js";
import type { Finding } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import type { ActionResult } from "./api.js";

/**
 * Defers or reopens one finding with a person's justification, in one transaction with its
 * event (who, when, why). The application layer has no such use case yet; this belongs in
 * src/app when it does.
 */
export async function changeFinding(
  ctx: Pick<AppContext, "store" | "clock" | "actor">,
  input: { taskId: string; findingId: string; justification: string },
  to: "deferred" | "open",
): Promise<ActionResult> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const task = await requireTask(tx, input.taskId);
    if (task.status === "running") {
      throw new FixpointError("usage", `${task.id} is running; its findings change when the run ends`);
    }
    const f = (await tx.listFindings(task.id)).find((x) => x.id === input.findingId);
    if (!f) throw new FixpointError("not_found", `${task.id} has no finding \`${input.findingId}\``);
    if (to === "deferred" && f.status !== "open" && f.status !== "blocked") {
      throw new FixpointError(
        "usage",
        `${f.id} is ${f.status}; only open or blocked findings can be deferred`,
      );
    }
    if (to === "open" && f.status === "open") throw new FixpointError("usage", `${f.id} is already open`);
    const next: Finding = {
      ...f,
      status: to,
      note: input.justification,
      timesReopened: to === "open" ? f.timesReopened + 1 : f.timesReopened,
      updatedAt: now,
    };
    const type = to === "open" ? "finding.reopened" : "finding.deferred";
    await tx.saveFindings(
      task.id,
      [next],
      [
        {
          taskId: task.id,
          runId: null,
          type,
          data: {
            finding: f.id,
            from: f.status,
            by: ctx.actor,
            at: new Date(now).toISOString(),
            justification: input.justification,
          },
        },
      ],
      now,
    );
    return { taskId: task.id, message: `${f.id} ${to === "open" ? "reopened" : "deferred"}` };
  });
}
