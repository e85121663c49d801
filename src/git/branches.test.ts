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

describe("deleteBranchIfSafe", () => {
  it("says what it did: kept a branch with unique commits, deleted a merged one, found none the second time", async () => {
    const wt = await branchWithWork("fixpoint/t-8");
    await git.removeWorktree(t.repo, wt);
    const sha = t.git(["rev-parse", "fixpoint/t-8"]);
    expect(await git.deleteBranchIfSafe(t.repo, "fixpoint/t-8")).toBe("kept");
    expect(t.git(["rev-parse", "fixpoint/t-8"])).toBe(sha);

    t.git(["merge", "-q", "--no-ff", "-m", "Merge", "fixpoint/t-8"]);
    expect(await git.deleteBranchIfSafe(t.repo, "fixpoint/t-8")).toBe("deleted");
    expect(t.git(["branch", "--list", "fixpoint/t-8"])).toBe("");
    expect(await git.deleteBranchIfSafe(t.repo, "fixpoint/t-8")).toBe("missing");
  });
});
