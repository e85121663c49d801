import { checkRev, createGitRunner, type GitRunner } from "../../git/exec.js";

/**
 * The few things fixpoint does with the `origin` remote. Pushes are plain `git push origin
 * <branch>`: never `--force`, never a deletion (SPEC §11). Argument vectors only.
 */
export interface GitRemote {
  /** Pushes `branch`; a rejection (the remote has commits we do not) is data, not an error. */
  push(cwd: string, branch: string): Promise<PushResult>;
  /** Fetches `branch` into `refs/remotes/origin/<branch>`; its sha, or null when the remote has no such branch. */
  fetchBranch(repo: string, branch: string): Promise<string | null>;
  /** The sha `branch` points at on the remote (`git ls-remote`), or null. */
  remoteHead(repo: string, branch: string): Promise<string | null>;
  /** Whether `ancestor` is reachable from `rev`. */
  isAncestor(repo: string, ancestor: string, rev: string): Promise<boolean>;
  /**
   * Brings local `branch` to `sha`: creates it there when missing; fast-forwards it when it is
   * behind (in the worktree that has it checked out, else by moving the ref); leaves it alone
   * when it has commits of its own. Never loses a commit.
   */
  syncLocalBranch(
    repo: string,
    branch: string,
    sha: string,
  ): Promise<"created" | "fast-forwarded" | "unchanged" | "diverged">;
}

export type PushResult = { ok: true } | { ok: false; rejected: boolean; reason: string };

const REJECTED = /\[rejected\]|non-fast-forward|fetch first|\(stale info\)|Updates were rejected/i;

export function createGitRemote(git: GitRunner = createGitRunner()): GitRemote {
  return {
    async push(cwd, branch) {
      checkRev(branch, "branch name");
      const r = await git.run(
        cwd,
        ["push", "--porcelain", "origin", `refs/heads/${branch}:refs/heads/${branch}`],
        {
          okCodes: [1, 128],
        },
      );
      if (r.code === 0) return { ok: true };
      const text = `${r.stdout}\n${r.stderr}`;
      if (REJECTED.test(text)) {
        return {
          ok: false,
          rejected: true,
          reason: `the remote branch ${branch} has commits fixpoint did not make; fixpoint never force-pushes: merge them into the branch by hand, then retry`,
        };
      }
      const line =
        r.stderr.split("\n").find((l) => /^(fatal|error):/.test(l.trim())) ?? r.stderr.trim().split("\n")[0];
      return {
        ok: false,
        rejected: false,
        reason: `git push to origin failed: ${line || `exit code ${r.code}`}`,
      };
    },

    async fetchBranch(repo, branch) {
      checkRev(branch, "branch name");
      if ((await this.remoteHead(repo, branch)) === null) return null;
      await git.run(repo, [
        "fetch",
        "--quiet",
        "origin",
        `+refs/heads/${branch}:refs/remotes/origin/${branch}`,
      ]);
      return (await git.run(repo, ["rev-parse", "--verify", `refs/remotes/origin/${branch}`])).stdout.trim();
    },

    async remoteHead(repo, branch) {
      checkRev(branch, "branch name");
      const r = await git.run(repo, ["ls-remote", "--heads", "origin", `refs/heads/${branch}`]);
      const sha = r.stdout.split(/\s+/)[0];
      return sha ? sha : null;
    },

    async isAncestor(repo, ancestor, rev) {
      const r = await git.run(repo, ["merge-base", "--is-ancestor", checkRev(ancestor), checkRev(rev)], {
        okCodes: [1],
      });
      return r.code === 0;
    },

    async syncLocalBranch(repo, branch, sha) {
      checkRev(branch, "branch name");
      const ref = `refs/heads/${branch}`;
      const local = await git.run(repo, ["rev-parse", "--verify", "--quiet", ref], { okCodes: [1] });
      const current = local.stdout.trim();
      if (local.code !== 0 || current === "") {
        await git.run(repo, ["branch", "--no-track", branch, checkRev(sha)]);
        return "created";
      }
      if (current === sha || (await this.isAncestor(repo, sha, current))) return "unchanged";
      if (!(await this.isAncestor(repo, current, sha))) return "diverged";
      const list = await git.run(repo, ["worktree", "list", "--porcelain"]);
      const holder = checkedOutAt(list.stdout, ref);
      if (holder) await git.run(holder, ["merge", "--ff-only", "--quiet", sha]);
      else await git.run(repo, ["update-ref", ref, sha, current]);
      return "fast-forwarded";
    },
  };
}

/** The worktree that has `ref` checked out, from `git worktree list --porcelain`. */
function checkedOutAt(porcelain: string, ref: string): string | null {
  let path: string | null = null;
  for (const line of porcelain.split("\n")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    else if (line === `branch ${ref}`) return path;
  }
  return null;
}
