import { existsSync } from "node:fs";
import { errorMessage } from "../errors.js";
import { groupBy } from "../util/group-by.js";
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
 * exists elsewhere. Per task, a documented sequence: its worktree first, the store write (forget
 * the worktree path, with an event) after — a crash in between leaves a path that no longer
 * exists, which the next `clean` skips and forgets. Branches go after every worktree, all at once
 * (Git.deleteBranchesIfSafe, a few git processes in all: git reads every worktree and every ref
 * to delete one, so one by one cost time in the number of them, for each). A crash before then
 * leaves branches the next `clean --branches` deletes. A task whose worktree is kept keeps its
 * branch.
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
  // Each task's actions, its branch's (decided after every worktree) appended to its own.
  const perTask: CleanAction[][] = [];
  const branchesOf: { repo: string; branch: string; actions: CleanAction[] }[] = [];
  let removed = 0;
  for (const t of tasks) {
    const actions: CleanAction[] = [];
    perTask.push(actions);
    const path = t.worktreePath;
    if (path && existsSync(path)) {
      // The removal checks for changes itself: one `git status` a worktree, not two.
      const outcome = input.dryRun
        ? await wouldRemove(git, path)
        : await git.removeWorktree(t.repo, path).catch((e: unknown) => ({ failed: errorMessage(e) }));
      if (outcome === "dirty") {
        actions.push({ kind: "kept", path, why: "it has uncommitted changes" });
        continue;
      }
      if (typeof outcome === "object") {
        actions.push({ kind: "kept", path, why: outcome.failed });
        continue;
      }
      if (outcome === "removed") removed++;
      actions.push({ kind: outcome, path });
    }
    if (input.branches && t.branch && !input.dryRun)
      branchesOf.push({ repo: t.repo, branch: t.branch, actions });
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
  for (const [repo, wanted] of groupBy(branchesOf, (b) => b.repo)) {
    const done = await git.deleteBranchesIfSafe(
      repo,
      wanted.map((b) => b.branch),
    );
    done.forEach((d, i) => {
      if (d.done === "missing") return;
      wanted[i]?.actions.push(
        d.done === "deleted"
          ? { kind: "branch_deleted", branch: d.branch }
          : { kind: "branch_kept", branch: d.branch, why: d.why ?? "it has commits that exist nowhere else" },
      );
    });
  }
  return { actions: perTask.flat(), removed };
}

/** What removing the worktree would do: nothing when it has changes. */
async function wouldRemove(git: AppContext["git"], path: string): Promise<"would_remove" | "dirty"> {
  const changes = await git.status(path).catch(() => []);
  return changes.length > 0 ? "dirty" : "would_remove";
}
