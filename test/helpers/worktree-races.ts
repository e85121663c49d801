/** For the tests of a worktree's add racing another process's (src/git/worktrees.test.ts, worktree-add.test.ts). */
import { expect } from "vitest";
import type { Git } from "../../src/domain/git.js";
import { createGitRunner, type GitRunner } from "../../src/git/exec.js";
import { ISOLATED_GIT_ENV } from "../../src/git/temp-repo.js";

const isWorktreeAdd = (args: string[]) => args[0] === "worktree" && args[1] === "add";

/**
 * A git runner that runs `before` ahead of each `worktree add` (or each command `on` names):
 * another process's race, or git's failure when it throws; then the command itself unless
 * `before` threw.
 */
export function beforeEachAdd(
  before: (cwd: string, real: GitRunner) => Promise<void>,
  on: (args: string[]) => boolean = isWorktreeAdd,
): GitRunner {
  const real = createGitRunner({ env: ISOLATED_GIT_ENV });
  return {
    run: async (cwd, args, opts) => {
      if (on(args)) await before(cwd, real);
      return real.run(cwd, args, opts);
    },
  };
}

/**
 * Has another process finish its add of the worktree at `path` 300 ms from now (`finish`), and
 * checks that `git.ensureWorktree` waited for it, then reused the worktree.
 */
export async function expectWaitedThenReused(
  git: Git,
  repo: string,
  path: string,
  branch: string,
  finish: () => void,
): Promise<void> {
  let finishedAt = 0;
  const timer = setTimeout(() => {
    finish();
    finishedAt = Date.now();
  }, 300);
  try {
    const r = await git.ensureWorktree({ repo, path, branch, base: "main" });
    expect(r).toEqual({ path, created: false });
    // Not before the other process was done with it.
    expect(finishedAt).toBeGreaterThan(0);
  } finally {
    clearTimeout(timer);
  }
}
