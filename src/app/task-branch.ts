import { existsSync } from "node:fs";
import type { Task } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import type { AppContext } from "./context.js";

/**
 * Where a task's branch is, seen from THIS clone (several machines, SPEC §13 / issue 12).
 *
 * A task's stored `repo` is the clone it was queued in, and its `worktreePath` the worktree of the
 * clone that ran it last: on another machine neither path exists. With a push remote the task's
 * work travels through that remote, so a reader (`show`, `diff`, `checkout`) looks at the task
 * in the clone it is run in: the local branch, or the remote's when this clone lacks the branch
 * or holds an older (or another clone's abandoned) state of it.
 */
export interface TaskBranchHere {
  /** The repository the branch is read in: this clone. */
  repo: string;
  branch: string;
  /** The commit the task's work is at: the local branch's, or the remote's when that is newer. */
  sha: string;
  /** The local branch's commit; null when this clone has no such branch. */
  localSha: string | null;
  /** Set when the remote's branch is the one to use (the local one is absent or behind). */
  remote: { name: string; sha: string } | null;
}

type Ctx = Pick<AppContext, "git"> & Partial<Pick<AppContext, "root" | "config">>;

/** The clone a task is read in: this one, unless the task's own clone is this machine's. */
export function cloneFor(ctx: Ctx, task: Task): string {
  const here = ctx.root;
  if (here === undefined || task.repo === here) return task.repo;
  // Another clone's path: with a push remote (or when that path is not on this machine) the
  // task is read here; a second clone on the same machine without a remote keeps its own.
  if (ctx.config?.defaults.pushRemote || !existsSync(task.repo)) return here;
  return task.repo;
}

/** The task's branch in this clone, fetching the push remote's when configured; null before it has one. */
export async function locateTaskBranch(ctx: Ctx, task: Task): Promise<TaskBranchHere | null> {
  const branch = task.branch;
  if (branch === null) return null;
  const repo = cloneFor(ctx, task);
  const localSha = (await ctx.git.branchExists(repo, branch))
    ? await ctx.git.revParse(repo, `refs/heads/${branch}`)
    : null;
  const name = ctx.root !== undefined ? ctx.config?.defaults.pushRemote : undefined;
  let remoteSha: string | null = null;
  if (name) {
    try {
      remoteSha = await ctx.git.fetchBranch(repo, name, branch);
    } catch (e) {
      if (localSha === null) {
        throw new FixpointError(
          "git",
          `${task.id}: branch ${branch} is not in this clone and cannot be fetched from remote "${name}" (${errorMessage(e)}); fix \`push-remote\` in fixpoint.kdl or FIXPOINT_PUSH_REMOTE`,
          { cause: e },
        );
      }
    }
  }
  if (remoteSha !== null && remoteSha !== localSha) {
    // The remote's branch is the task's unless this clone's holds everything it does and more.
    const localAhead = localSha !== null && (await ctx.git.isAncestor(repo, remoteSha, localSha));
    if (!localAhead)
      return { repo, branch, sha: remoteSha, localSha, remote: { name: name ?? "", sha: remoteSha } };
  }
  if (localSha === null) return null;
  return { repo, branch, sha: localSha, localSha, remote: null };
}
