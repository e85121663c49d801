import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Git } from "../domain/git.js";
import { createGit } from "./git-cli.js";
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from "./temp-repo.js";

let t: TempRepo;
let git: Git;

beforeEach(() => {
  t = createTempRepo();
  git = createGit({ env: ISOLATED_GIT_ENV });
});
afterEach(() => t.cleanup());

/** A task branch with one commit of its own, made in its worktree; returns the worktree path. */
async function branchWithWork(branch: string): Promise<string> {
  const path = join(t.dir, "wt", branch.replace(/\//g, "_"));
  await git.ensureWorktree({ repo: t.repo, path, branch, base: "main" });
  t.commit({ "work.txt": "unique work\n" }, "Unique work", path);
  return path;
}

describe("isBranchSafeToDelete", () => {
  it("is false while the branch has commits found nowhere else", async () => {
    await branchWithWork("fixpoint/t-1");
    expect(await git.isBranchSafeToDelete(t.repo, "fixpoint/t-1")).toBe(false);
  });

  it("is true for a branch with no commits beyond its base", async () => {
    t.git(["branch", "fixpoint/t-2", "main"]);
    expect(await git.isBranchSafeToDelete(t.repo, "fixpoint/t-2")).toBe(true);
  });

  it("becomes true once the branch is merged into another branch", async () => {
    await branchWithWork("fixpoint/t-3");
    t.git(["merge", "-q", "--no-ff", "-m", "Merge", "fixpoint/t-3"]);
    expect(await git.isBranchSafeToDelete(t.repo, "fixpoint/t-3")).toBe(true);
  });

  it("becomes true once the branch is pushed to a remote, and false again after new local work", async () => {
    const wt = await branchWithWork("fixpoint/t-4");
    const remote = join(t.dir, "remote.git");
    t.git(["init", "-q", "--bare", remote], t.dir);
    t.git(["remote", "add", "origin", remote]);
    t.git(["push", "-q", "origin", "fixpoint/t-4"]);
    expect(await git.isBranchSafeToDelete(t.repo, "fixpoint/t-4")).toBe(true);

    t.commit({ "more.txt": "more\n" }, "Unpushed", wt);
    expect(await git.isBranchSafeToDelete(t.repo, "fixpoint/t-4")).toBe(false);
  });

  it("counts a tag as keeping the commits", async () => {
    await branchWithWork("fixpoint/t-5");
    t.git(["tag", "keep", "fixpoint/t-5"]);
    expect(await git.isBranchSafeToDelete(t.repo, "fixpoint/t-5")).toBe(true);
  });

  it("is false for a branch that does not exist", async () => {
    expect(await git.isBranchSafeToDelete(t.repo, "fixpoint/none")).toBe(false);
  });
});

describe("deleteBranch", () => {
  it("refuses to delete a branch with unique commits, which stays intact", async () => {
    const wt = await branchWithWork("fixpoint/t-6");
    await git.removeWorktree(t.repo, wt);
    const sha = t.git(["rev-parse", "fixpoint/t-6"]);

    await expect(git.deleteBranch(t.repo, "fixpoint/t-6")).rejects.toThrow(/refusing to delete branch/);
    expect(t.git(["rev-parse", "fixpoint/t-6"])).toBe(sha);
  });

  it("deletes a branch whose commits are merged elsewhere", async () => {
    const wt = await branchWithWork("fixpoint/t-7");
    await git.removeWorktree(t.repo, wt);
    t.git(["merge", "-q", "--no-ff", "-m", "Merge", "fixpoint/t-7"]);

    await git.deleteBranch(t.repo, "fixpoint/t-7");
    expect(await git.branchExists(t.repo, "fixpoint/t-7")).toBe(false);
  });
});

describe("deleteBranchesIfSafe", () => {
  it("says what it did: kept a branch with unique commits, deleted a merged one, found none the second time", async () => {
    const wt = await branchWithWork("fixpoint/t-8");
    await git.removeWorktree(t.repo, wt);
    const sha = t.git(["rev-parse", "fixpoint/t-8"]);
    expect(await git.deleteBranchesIfSafe(t.repo, ["fixpoint/t-8"])).toEqual([
      { branch: "fixpoint/t-8", done: "kept" },
    ]);
    expect(t.git(["rev-parse", "fixpoint/t-8"])).toBe(sha);

    t.git(["merge", "-q", "--no-ff", "-m", "Merge", "fixpoint/t-8"]);
    expect(await git.deleteBranchesIfSafe(t.repo, ["fixpoint/t-8"])).toEqual([
      { branch: "fixpoint/t-8", done: "deleted" },
    ]);
    expect(t.git(["branch", "--list", "fixpoint/t-8"])).toBe("");
    expect(await git.deleteBranchesIfSafe(t.repo, ["fixpoint/t-8"])).toEqual([
      { branch: "fixpoint/t-8", done: "missing" },
    ]);
  });

  it("never deletes the last branch holding a commit: of two on the same unique commit, or one stacked on another, the first goes", async () => {
    const wt = await branchWithWork("fixpoint/a");
    const sha = t.git(["rev-parse", "fixpoint/a"]);
    t.git(["branch", "fixpoint/b", "fixpoint/a"]);
    // c is stacked on a: a's commit is c's parent; d has a commit of its own only.
    t.commit({ "c.txt": "c\n" }, "On top of a", wt);
    t.git(["branch", "fixpoint/c"], wt);
    t.git(["switch", "-q", "--detach", "main"], wt);
    t.git(["branch", "-f", "fixpoint/a", sha]);
    await branchWithWork("fixpoint/d");

    const done = await git.deleteBranchesIfSafe(t.repo, [
      "fixpoint/a",
      "fixpoint/b",
      "fixpoint/c",
      "fixpoint/d",
      "nope",
    ]);

    // a: b and c still hold its commit. b: its commit is c's parent, and c stays. c and d: only
    // they hold their commits.
    expect(done.map((d) => d.done)).toEqual(["deleted", "deleted", "kept", "kept", "missing"]);
    expect(t.git(["rev-list", "--count", "fixpoint/c"])).toBe("3");
    expect(t.git(["branch", "--list", "fixpoint/a", "fixpoint/b"])).toBe("");
  });

  it("keeps, with git's reason, a safe branch git refuses to delete (checked out in the main checkout)", async () => {
    t.git(["branch", "fixpoint/e", "main"]);
    t.git(["branch", "fixpoint/f", "main"]);
    t.git(["switch", "-q", "fixpoint/e"]);
    const done = await git.deleteBranchesIfSafe(t.repo, ["fixpoint/e", "fixpoint/f"]);
    expect(done[0]).toMatchObject({
      branch: "fixpoint/e",
      done: "kept",
      why: expect.stringContaining("checked out"),
    });
    expect(done[1]).toEqual({ branch: "fixpoint/f", done: "deleted" });
    expect(t.git(["branch", "--list", "fixpoint/e"])).toContain("fixpoint/e");
  });

  it("matches one by one checks on random histories of stacked and shared branches", async () => {
    // A small model: commits in a chain off main, branches on some of them, some merged into
    // main. The batch must delete exactly what deleting one at a time (isBranchSafeToDelete, then
    // `git branch -D`) deletes, in the same order.
    for (let round = 0; round < 3; round++) {
      const r = createTempRepo();
      try {
        const g = createGit({ env: ISOLATED_GIT_ENV });
        const names: string[] = [];
        let seed = 7 + round * 13;
        const rand = (n: number) => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return seed % n;
        };
        const shas: string[] = [r.git(["rev-parse", "main"])];
        for (let i = 0; i < 6; i++) {
          const from = shas[rand(shas.length)] as string;
          r.git(["switch", "-q", "--detach", from]);
          shas.push(r.commit({ [`f${i}.txt`]: `${i}\n` }, `c${i}`));
        }
        r.git(["switch", "-q", "main"]);
        for (let i = 0; i < 7; i++) {
          const name = `fixpoint/b${i}`;
          r.git(["branch", "-f", name, shas[rand(shas.length)] as string]);
          names.push(name);
        }
        if (rand(2) === 0) r.git(["merge", "-q", "--no-edit", names[rand(names.length)] as string]);
        // One at a time, on a copy of the repository.
        const copy = join(r.dir, "copy");
        r.git(["clone", "-q", "--mirror", r.repo, copy]);
        const expected: string[] = [];
        for (const name of names) {
          const safe = await g.isBranchSafeToDelete(copy, name);
          if (safe) r.git(["branch", "-D", name], copy);
          expected.push(safe ? "deleted" : "kept");
        }
        const done = await g.deleteBranchesIfSafe(r.repo, names);
        expect(done.map((d) => d.done)).toEqual(expected);
      } finally {
        r.cleanup();
      }
    }
  });
});
