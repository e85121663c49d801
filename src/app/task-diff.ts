import type { AppContext } from "./context.js";
import { locateTaskBranch } from "./task-branch.js";
import { requireTask } from "./task-ref.js";

export interface TaskDiff {
  taskId: string;
  branch: string | null;
  base: string;
  /** Unified diff from the merge-base of base and branch to the branch; null when no branch exists yet. */
  diff: string | null;
}

/**
 * What a task's branch changes against its base (`fixpoint diff`, the dashboard's task page), read
 * in this clone: with a push remote, the remote's branch when this clone lacks it or is behind
 * (the task ran on another machine; task-branch.ts).
 */
export async function taskDiff(
  ctx: Pick<AppContext, "store" | "git"> & Partial<Pick<AppContext, "root" | "config">>,
  ref: string,
): Promise<TaskDiff> {
  const task = await requireTask(ctx.store, ref);
  const out = { taskId: task.id, branch: task.branch, base: task.baseBranch };
  const here = await locateTaskBranch(ctx, task);
  if (here === null) return { ...out, diff: null };
  return {
    ...out,
    diff: await ctx.git.diff(here.repo, task.baseBranch, { to: here.sha, mergeBase: true }),
  };
}
