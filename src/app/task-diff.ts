import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";

export interface TaskDiff {
  taskId: string;
  branch: string | null;
  base: string;
  /** Unified diff from the merge-base of base and branch to the branch; null when no branch exists yet. */
  diff: string | null;
}

/** What a task's branch changes against its base (`fixpoint diff`, the dashboard's task page). */
export async function taskDiff(ctx: Pick<AppContext, "store" | "git">, ref: string): Promise<TaskDiff> {
  const task = await requireTask(ctx.store, ref);
  const out = { taskId: task.id, branch: task.branch, base: task.baseBranch };
  if (!task.branch || !(await ctx.git.branchExists(task.repo, task.branch))) return { ...out, diff: null };
  return {
    ...out,
    diff: await ctx.git.diff(task.repo, task.baseBranch, { to: task.branch, mergeBase: true }),
  };
}
