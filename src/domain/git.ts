/**
 * Git as fixpoint needs it. The real implementation shells out to `git` with argument vectors
 * (never a shell string); tests use real repositories in temporary folders.
 * Every method throws FixpointError("git") with git's own message when git fails.
 */
export interface Git {
  /** The top-level folder of the repository containing `cwd`; null when not in a repository. */
  repoRoot(cwd: string): Promise<string | null>;
  currentBranch(repo: string): Promise<string | null>;
  headSha(cwd: string): Promise<string>;
  revParse(cwd: string, rev: string): Promise<string | null>;
  branchExists(repo: string, branch: string): Promise<boolean>;
  /** Porcelain status lines; empty when clean. */
  status(cwd: string): Promise<string[]>;

  /**
   * Makes sure a worktree for `branch` exists at `path`: reuses it when present and on that branch;
   * else adds it from the existing branch; else creates the branch from `base`. Never touches the
   * main checkout's working tree or index.
   */
  ensureWorktree(opts: { repo: string; path: string; branch: string; base: string }): Promise<{
    path: string;
    created: boolean;
  }>;
  /**
   * Removes a worktree (its folder and git's record of it); a folder already gone is forgotten.
   * "dirty": it has uncommitted changes or untracked files, and nothing was done.
   */
  removeWorktree(repo: string, path: string): Promise<"removed" | "dirty">;
  listWorktrees(repo: string): Promise<{ path: string; branch: string | null }[]>;

  /**
   * Stages everything (including new files) and commits; returns the new sha, or null when clean.
   * `head`: HEAD's sha as the caller just read it (nothing ran in the worktree since), so the
   * commit need not read it again. `beforeCommit`: awaited once there is something to stage or
   * commit, before anything is (the engine saves the agent's reply there); not called when the
   * worktree is clean.
   */
  commitAll(
    cwd: string,
    message: string,
    opts?: { head?: string; beforeCommit?: () => Promise<void> },
  ): Promise<string | null>;
  /** Commits in (from, to], oldest first. */
  commitsBetween(cwd: string, from: string, to: string): Promise<{ sha: string; subject: string }[]>;
  /** Unified diff from `from` (merge-base with `to` when `mergeBase`) to `to` (default HEAD). */
  diff(cwd: string, from: string, opts?: { to?: string; mergeBase?: boolean }): Promise<string>;
  /** `git diff --stat`-like list of changed paths between two revisions. */
  changedFiles(cwd: string, from: string, to?: string): Promise<string[]>;
  /** Every path git tracks in the checkout at `cwd` (`git ls-files`), relative to its root. */
  trackedFiles(cwd: string): Promise<string[]>;
  /** Whether every commit of `branch` is reachable from some other ref (another branch, a remote). */
  isBranchSafeToDelete(repo: string, branch: string): Promise<boolean>;
  /** Deletes the branch; throws, deleting nothing, unless isBranchSafeToDelete holds. */
  deleteBranch(repo: string, branch: string): Promise<void>;
  /**
   * Deletes, in order, each branch whose every commit is still reachable from another ref once
   * those before it are gone; says of each whether it was deleted, kept (with git's reason when
   * git refused a safe one) or not found. A handful of git processes for any number of branches.
   */
  deleteBranchesIfSafe(
    repo: string,
    branches: readonly string[],
  ): Promise<{ branch: string; done: "deleted" | "kept" | "missing"; why?: string }[]>;

  /**
   * Switches the checkout at `repo` to the existing `branch` (`git switch`). Git refuses, and this
   * throws, when local changes would be overwritten or another worktree has the branch.
   */
  checkout(repo: string, branch: string): Promise<void>;

  // ---- task branches through a remote (several machines; see engine/branch-sync.ts)
  /** The sha of `branch` on `remote`, null when absent. Network: bounded by a timeout. */
  remoteBranchSha(repo: string, remote: string, branch: string, opts?: GitNetOptions): Promise<string | null>;
  /** Fetches `branch` from `remote` (into `refs/remotes/<remote>/<branch>`); its sha, null when absent. */
  fetchBranch(repo: string, remote: string, branch: string, opts?: GitNetOptions): Promise<string | null>;
  /**
   * Pushes `sha` to `remote`'s `branch` with `--force-with-lease` against `expected` (null: the
   * branch must not exist there). A refusal throws a retryable FixpointError("git") naming both.
   */
  pushWithLease(
    cwd: string,
    push: { remote: string; branch: string; sha: string; expected: string | null },
    opts?: GitNetOptions,
  ): Promise<void>;
  /** Whether `ancestor` is reachable from `rev`. */
  isAncestor(cwd: string, ancestor: string, rev: string): Promise<boolean>;
  /** Puts the worktree at `cwd` (branch, index, files) at `sha`, dropping whatever differs. */
  resetHard(cwd: string, sha: string): Promise<void>;
}

/** Bounds a git command that talks to a remote. */
export interface GitNetOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}
