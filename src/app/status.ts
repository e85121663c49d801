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
