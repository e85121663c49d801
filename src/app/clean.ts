import { existsSync } from "node:fs";
import { errorMessage } from "../errors.js";
import type { AppContext } from "./context.js";

const FINISHED = ["completed", "cancelled"] as const;

export type CleanAction =
  | { kind: "removed" | "would_remove"; path: string }
  | { kind: "kept"; path: string; why: string }
  | { kind: "branch_deleted"; branch: string }
  | { kind: "branch_kept"; branch: string; why: string };

export interface CleanResult {
  actions: CleanAction[];
  removed: number;
}

/**
 * Removes the worktrees of finished tasks, and with `branches` their branches when every commit
 * exists elsewhere. Per task, a documented sequence: git first (worktree, then branch), the store
 * write (forget the worktree path, with an event) last — a crash in between leaves a path that
 * no longer exists, which the next `clean` skips and forgets.
 */
export async function cleanTasks(
  ctx: Pick<AppContext, "store" | "git" | "clock" | "actor">,
  input: { branches?: boolean; dryRun?: boolean } = {},
): Promise<CleanResult> {
  const { store, git } = ctx;
  // Only the finished tasks that still hold something: 100,000 tasks are not read to find them.
  const tasks = await store.listTasks({
    statuses: [...FINISHED],
    holding: input.branches ? "worktree-or-branch" : "worktree",
  });
  const actions: CleanAction[] = [];
  let removed = 0;
  for (const t of tasks) {
    const path = t.worktreePath;
    if (path && existsSync(path)) {
      const dirty = await git.status(path).catch(() => []);
      if (dirty.length) {
        actions.push({ kind: "kept", path, why: "it has uncommitted changes" });
        continue;
      }
      if (input.dryRun) actions.push({ kind: "would_remove", path });
      else {
        try {
          await git.removeWorktree(t.repo, path);
          removed++;
          actions.push({ kind: "removed", path });
        } catch (e) {
          actions.push({ kind: "kept", path, why: errorMessage(e) });
          continue;
        }
      }
    }
    if (input.branches && t.branch && !input.dryRun && (await git.branchExists(t.repo, t.branch))) {
      if (await git.isBranchSafeToDelete(t.repo, t.branch)) {
        await git.deleteBranch(t.repo, t.branch);
        actions.push({ kind: "branch_deleted", branch: t.branch });
      } else {
        actions.push({
          kind: "branch_kept",
          branch: t.branch,
          why: "it has commits that exist nowhere else",
        });
      }
    }
    if (!input.dryRun && path) {
      const now = ctx.clock.now();
      await store.transaction(async (tx) => {
        await tx.updateTask(t.id, { worktreePath: null }, now);
        await tx.appendEvents(
          [
            {
              taskId: t.id,
              runId: null,
              type: "task.cleaned",
              data: { worktree: path, by: ctx.actor, at: new Date(now).toISOString() },
            },
          ],
          now,
        );
      });
    }
  }
  return { actions, removed };
}
