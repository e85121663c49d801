import { FixpointError } from "../errors.js";
import type { AppContext } from "./context.js";
import { locateTaskBranch } from "./task-branch.js";
import { requireTask } from "./task-ref.js";

/**
 * `fixpoint checkout <task>`: look at a task's work where you work. By default the task's branch
 * is checked out in the main checkout, which must have no uncommitted changes to tracked files;
 * with `worktree`, nothing changes and the task's own worktree is named instead (`cd` there).
 * Refusals are outcomes (the CLI exits 1 with the reason), not errors.
 *
 * In another clone than the one that ran the task (several machines, push remote), the branch is
 * fetched from the remote: checked out from it when this clone lacks it, fast-forwarded to it
 * when this clone's is behind (task-branch.ts).
 */
export type CheckoutOutcome =
  | { kind: "checked_out"; taskId: string; branch: string; previous: string | null }
  | { kind: "already"; taskId: string; branch: string }
  | { kind: "worktree"; taskId: string; branch: string; path: string }
  | { kind: "refused"; taskId: string; branch: string; reason: string };

export async function checkoutTask(
  ctx: Pick<AppContext, "store" | "git"> & Partial<Pick<AppContext, "root" | "config">>,
  ref: string,
  opts: { worktree?: boolean } = {},
): Promise<CheckoutOutcome> {
  const task = await requireTask(ctx.store, ref);
  const here = await locateTaskBranch(ctx, task);
  if (here === null) {
    throw new FixpointError("usage", `${task.id} has no branch yet (it has not started)`);
  }
  const { repo, branch } = here;
  const base = { taskId: task.id, branch };
  const holder = (await ctx.git.listWorktrees(repo)).find((w) => w.branch === branch && w.path !== repo);
  if (opts.worktree) {
    if (holder) return { kind: "worktree", ...base, path: holder.path };
    return {
      ...base,
      kind: "refused",
      reason:
        here.localSha === null
          ? `${task.id} has no worktree in this clone (it ran on another machine); \`fixpoint checkout ${task.id}\` checks out ${branch} here`
          : `${task.id} has no worktree any more (removed by \`fixpoint clean\`?); \`fixpoint checkout ${task.id}\` checks out ${branch} here`,
    };
  }
  const previous = await ctx.git.currentBranch(repo);
  if (previous === branch && here.remote === null) return { kind: "already", ...base };
  if (holder) {
    return {
      ...base,
      kind: "refused",
      reason: `${branch} is checked out in ${task.id}'s worktree ${holder.path}: work there (\`fixpoint checkout ${task.id} --worktree\` prints it), or remove it with \`fixpoint clean\` once the task is done`,
    };
  }
  // Untracked files stay where they are on a switch; changes to tracked files would travel along.
  const changed = (await ctx.git.status(repo)).filter((l) => !l.startsWith("??"));
  if (changed.length > 0) {
    const shown = changed.slice(0, 5).map((l) => `  ${l}`);
    if (changed.length > 5) shown.push(`  … and ${changed.length - 5} more`);
    return {
      ...base,
      kind: "refused",
      reason: `${repo} has uncommitted changes; commit or stash them first:\n${shown.join("\n")}`,
    };
  }
  if (here.remote !== null && here.localSha !== null) {
    // This clone's branch is not the task's latest: fast-forward it, never drop its own commits.
    if (!(await ctx.git.isAncestor(repo, here.localSha, here.remote.sha))) {
      return {
        ...base,
        kind: "refused",
        reason: `this clone's ${branch} has commits that branch ${branch} on remote "${here.remote.name}" (the task's latest work, ${here.remote.sha.slice(0, 12)}) does not: they are left from a run this clone lost to another worker. To look at the task's work: \`git switch ${branch} && git reset --hard ${here.remote.name}/${branch}\``,
      };
    }
  }
  // A branch only the remote has is created from it by `git switch` (its remote-tracking ref was
  // just fetched).
  if (previous !== branch) await ctx.git.checkout(repo, branch);
  if (here.remote !== null && here.localSha !== null) await ctx.git.resetHard(repo, here.remote.sha);
  if (previous === branch) return { kind: "already", ...base };
  return { kind: "checked_out", ...base, previous };
}
