import { FixpointError } from "../errors.js";
import { checkRev, type GitRunner } from "./exec.js";

export async function branchExists(git: GitRunner, repo: string, branch: string): Promise<boolean> {
  checkRev(branch, "branch name");
  const r = await git.run(repo, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], {
    okCodes: [1],
  });
  return r.code === 0;
}

/** What `deleteBranchIfSafe` did: deleted it, kept it (its commits exist nowhere else), or found none. */
export type BranchDeletion = "deleted" | "kept" | "missing";

/**
 * True only when every commit of `branch` is also reachable from another local branch, a
 * remote-tracking branch or a tag, so deleting the branch cannot lose work (SPEC §11).
 * A branch that does not exist is reported unsafe: "safe" is the claim that needs proof.
 */
export async function isBranchSafeToDelete(git: GitRunner, repo: string, branch: string): Promise<boolean> {
  return (await branchSafety(git, repo, branch)) === "safe";
}

/**
 * Whether `branch` exists and every commit of it is also reachable from another ref: two git
 * processes, the refs listed once (they answer whether it exists too).
 */
async function branchSafety(
  git: GitRunner,
  repo: string,
  branch: string,
): Promise<"safe" | "unsafe" | "missing"> {
  checkRev(branch, "branch name");
  const own = `refs/heads/${branch}`;
  const refs = await git.run(repo, [
    "for-each-ref",
    "--format=%(refname)",
    "refs/heads",
    "refs/remotes",
    "refs/tags",
  ]);
  const all = refs.stdout.split("\n").filter((r) => r.length > 0);
  if (!all.includes(own)) return "missing";
  const others = all
    .filter((r) => r !== own)
    // `refs/remotes/origin/HEAD` is only an alias for another remote branch.
    .filter((r) => !r.endsWith("/HEAD"));
  // Refs go through stdin: a repository with thousands of tags would overflow an argument list.
  const input = [own, ...others.map((r) => `^${r}`)].join("\n");
  const unique = await git.run(repo, ["rev-list", "--count", "--stdin"], { input: `${input}\n` });
  return Number.parseInt(unique.stdout.trim(), 10) === 0 ? "safe" : "unsafe";
}

/**
 * Deletes a local branch when every commit of it exists elsewhere (isBranchSafeToDelete), in three
 * git processes; says what it did. The engine must never lose work, so the check lives here
 * rather than in every caller.
 */
export async function deleteBranchIfSafe(
  git: GitRunner,
  repo: string,
  branch: string,
): Promise<BranchDeletion> {
  const safety = await branchSafety(git, repo, branch);
  if (safety !== "safe") return safety === "missing" ? "missing" : "kept";
  // -D because `-d` judges "merged" against HEAD and upstream only, which would refuse a branch
  // that is safe by the check above (e.g. pushed to a remote, or merged into another branch).
  await git.run(repo, ["branch", "-D", branch]);
  return "deleted";
}

/** Deletes a local branch whose commits exist elsewhere; refuses (throws) otherwise. */
export async function deleteBranch(git: GitRunner, repo: string, branch: string): Promise<void> {
  const done = await deleteBranchIfSafe(git, repo, branch);
  if (done === "deleted") return;
  throw new FixpointError(
    "git",
    done === "kept"
      ? `refusing to delete branch ${branch}: it has commits not on any other branch, remote or tag`
      : `cannot delete branch ${branch}: no such branch`,
  );
}
