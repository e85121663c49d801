import type { TaskStatus, TaskSummary } from "../domain/types.js";
import type { AppContext } from "./context.js";

/** What `status` lists by default: every task except the cancelled ones. */
const LISTED: TaskStatus[] = ["queued", "running", "completed", "needs_human", "failed"];

/** One summary per task, oldest first; `all` includes cancelled tasks. */
export async function listTasks(
  ctx: Pick<AppContext, "store">,
  input: { all?: boolean } = {},
): Promise<TaskSummary[]> {
  return ctx.store.listTaskSummaries(input.all ? {} : { statuses: LISTED });
}

/**
 * One page of `listTasks`: up to `limit` summaries after the task numbered `afterSeq`, oldest
 * first. Callers that stream (`status --json`) walk the pages so memory and time to first byte do
 * not grow with the number of tasks.
 */
export async function listTasksPage(
  ctx: Pick<AppContext, "store">,
  input: { all?: boolean; limit: number; afterSeq?: number | undefined },
): Promise<TaskSummary[]> {
  return ctx.store.listTaskSummaries({
    ...(input.all ? {} : { statuses: LISTED }),
    limit: input.limit,
    ...(input.afterSeq === undefined ? {} : { afterSeq: input.afterSeq }),
  });
}
