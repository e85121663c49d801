import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { beforeEachAdd, expectWaitedThenReused } from "../../test/helpers/worktree-races.js";
import type { Git } from "../domain/git.js";
import { FixpointError } from "../errors.js";
import { createGit } from "./git-cli.js";
import { createTempRepo, ISOLATED_GIT_ENV, loggingGit, type TempRepo } from "./temp-repo.js";
import { ensureWorktree } from "./worktrees.js";

let t: TempRepo;
let git: Git;

beforeEach(() => {
  t = createTempRepo();
  git = createGit({ env: ISOLATED_GIT_ENV });
});
afterEach(() => t.cleanup());

describe("ensureWorktree", () => {
  it("creates a new branch from the base in a new folder, creating parent folders", async () => {
    const path = join(t.dir, "worktrees", "repo-x", "t-1");
    const r = await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-1-a", base: "main" });

    expect(r).toEqual({ path, created: true });
    expect(t.read("README.md", path)).toBe("hello\n");
    expect(await git.currentBranch(path)).toBe("fixpoint/t-1-a");
    expect(await git.headSha(path)).toBe(t.git(["rev-parse", "main"]));
    expect(await git.listWorktrees(t.repo)).toContainEqual({ path, branch: "fixpoint/t-1-a" });
  });

  it("reuses an existing worktree on the same branch, keeping its uncommitted work", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-1", base: "main" });
    t.write("work.txt", "in progress\n", path);

    const again = await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-1", base: "main" });

    expect(again).toEqual({ path, created: false });
    expect(t.read("work.txt", path)).toBe("in progress\n");
  });

  it("knows an existing worktree from its own record, without git listing every worktree", async () => {
    const logged = loggingGit(t.dir);
    const g = createGit({ env: ISOLATED_GIT_ENV, gitPath: logged.path });
    const path = join(t.dir, "wt");
    await g.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-15", base: "main" });
    logged.spawned();
    expect(await g.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-15", base: "main" })).toEqual({
      path,
      created: false,
    });
    expect(logged.spawned()).toEqual([]);
    t.git(["switch", "-q", "-c", "elsewhere"], path);
    await expect(
      g.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-15", base: "main" }),
    ).rejects.toThrow(/is on branch elsewhere, expected fixpoint\/t-15/);
    expect(logged.spawned()).toEqual([]);
  });

  it("recreates a deleted worktree folder from the branch, with the branch's commits", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-2", base: "main" });
    const sha = t.commit({ "feature.ts": "export const x = 1;\n" }, "Agent work", path);
    rmSync(path, { recursive: true, force: true });

    const r = await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-2", base: "main" });

    expect(r.created).toBe(true);
    expect(await git.headSha(path)).toBe(sha);
    expect(t.read("feature.ts", path)).toBe("export const x = 1;\n");
  });

  it("never touches a dirty main checkout (working tree and index)", async () => {
    t.commit({ "tracked.txt": "original\n" }, "Add tracked");
    t.write("tracked.txt", "edited by the user\n");
    t.write("staged.txt", "staged by the user\n");
    t.git(["add", "staged.txt"]);
    t.write("untracked.txt", "scratch\n");
    const statusBefore = t.git(["status", "--porcelain"]);
    const indexBefore = t.git(["diff", "--cached"]);
    const headBefore = t.git(["rev-parse", "HEAD"]);

    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-3", base: "main" });
    t.write("agent.txt", "agent\n", path);
    await git.commitAll(path, "Agent commit");
    rmSync(path, { recursive: true, force: true });
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-3", base: "main" });

    expect(t.git(["status", "--porcelain"])).toBe(statusBefore);
    expect(t.git(["diff", "--cached"])).toBe(indexBefore);
    expect(t.git(["rev-parse", "HEAD"])).toBe(headBefore);
    expect(await git.currentBranch(t.repo)).toBe("main");
    expect(t.read("tracked.txt")).toBe("edited by the user\n");
    expect(t.read("untracked.txt")).toBe("scratch\n");
    expect(existsSync(join(t.repo, "agent.txt"))).toBe(false);
    // The worktree starts from the committed base, not from the user's uncommitted edits.
    expect(t.read("tracked.txt", path)).toBe("original\n");
  });

  it("refuses a stray folder that is not a worktree, leaving it as it was", async () => {
    const path = join(t.dir, "stray");
    mkdirSync(path);
    writeFileSync(join(path, "notes.txt"), "mine\n");

    const attempt = git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-4", base: "main" });

    await expect(attempt).rejects.toThrow(FixpointError);
    await expect(attempt).rejects.toThrow(/exists but is not a worktree/);
    expect(t.read("notes.txt", path)).toBe("mine\n");
    expect(await git.branchExists(t.repo, "fixpoint/t-4")).toBe(false);
  });

  it("waits for a folder that is no worktree to go away (a failed add removing its files) instead of failing", async () => {
    const path = join(t.dir, "vanishing");
    mkdirSync(path);
    writeFileSync(join(path, "half-checked-out.txt"), "x\n");
    const gone = new Promise<void>((resolve) =>
      setTimeout(() => {
        rmSync(path, { recursive: true, force: true });
        resolve();
      }, 400),
    );
    const r = await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-16", base: "main" });
    await gone;
    expect(r.created).toBe(true);
    expect(t.read("README.md", path)).toBe("hello\n");
    expect(existsSync(join(path, "half-checked-out.txt"))).toBe(false);
  });

  it("accepts an empty folder left by an interrupted add", async () => {
    const path = join(t.dir, "empty");
    mkdirSync(path);
    const r = await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-5", base: "main" });
    expect(r.created).toBe(true);
    expect(t.read("README.md", path)).toBe("hello\n");
  });

  it("refuses a worktree that is on another branch", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-6", base: "main" });
    await expect(
      git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-7", base: "main" }),
    ).rejects.toThrow(/is on branch fixpoint\/t-6, expected fixpoint\/t-7/);
  });

  it("reports a missing base as a git error naming the command", async () => {
    const path = join(t.dir, "wt");
    const attempt = git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-8", base: "no-such-base" });
    await expect(attempt).rejects.toMatchObject({
      code: "git",
      message: expect.stringMatching(/^git branch failed: .*no-such-base/),
    });
  });
});

describe("removeWorktree", () => {
  it("removes a clean worktree but keeps its branch", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-9", base: "main" });
    await git.removeWorktree(t.repo, path);
    expect(existsSync(path)).toBe(false);
    expect(await git.branchExists(t.repo, "fixpoint/t-9")).toBe(true);
    expect((await git.listWorktrees(t.repo)).map((w) => w.path)).toEqual([t.repo]);
  });

  it("refuses to remove a worktree with uncommitted work", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-10", base: "main" });
    t.write("README.md", "changed\n", path);
    expect(await git.removeWorktree(t.repo, path)).toBe("dirty");
    expect(t.read("README.md", path)).toBe("changed\n");
  });

  it("removes a plain worktree without `git worktree remove`, leaving nothing for git to prune and its branch free", async () => {
    const logged = loggingGit(t.dir);
    const g = createGit({ env: ISOLATED_GIT_ENV, gitPath: logged.path });
    const path = join(t.dir, "wt");
    await g.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-12", base: "main" });
    t.write("build/out.txt", "ignored\n", path);
    t.write(".git/info/exclude", "build/\n");
    logged.spawned();

    await g.removeWorktree(t.repo, path);

    expect(logged.spawned()).toEqual(["status"]);
    expect(existsSync(path)).toBe(false);
    expect(t.git(["worktree", "list", "--porcelain"])).not.toContain(path);
    expect(t.git(["worktree", "prune", "--dry-run", "-v"])).toBe("");
    t.git(["branch", "-D", "fixpoint/t-12"]);
  });

  it("refuses a worktree with an untracked file, and leaves a locked one to git, which refuses it", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-13", base: "main" });
    t.write("notes.txt", "mine\n", path);
    expect(await git.removeWorktree(t.repo, path)).toBe("dirty");
    expect(t.read("notes.txt", path)).toBe("mine\n");

    // Locked: git's to remove, and git refuses.
    rmSync(join(path, "notes.txt"));
    t.git(["worktree", "lock", path]);
    await expect(git.removeWorktree(t.repo, path)).rejects.toMatchObject({
      code: "git",
      message: expect.stringMatching(/^git worktree failed: fatal: .*locked/),
    });
    expect(t.read("README.md", path)).toBe("hello\n");
    t.git(["worktree", "unlock", path]);
    expect(await git.removeWorktree(t.repo, path)).toBe("removed");
    expect(existsSync(path)).toBe(false);
  });

  it("leaves a worktree whose record names another folder to git", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-14", base: "main" });
    // A copy of the worktree's folder names the same record, which does not name it back.
    const copy = join(t.dir, "copy");
    mkdirSync(copy);
    writeFileSync(join(copy, ".git"), readFileSync(join(path, ".git")));
    await expect(git.removeWorktree(t.repo, copy)).rejects.toMatchObject({ code: "git" });
    expect(existsSync(join(copy, ".git"))).toBe(true);
    expect(existsSync(path)).toBe(true);
  });

  it("prunes the record of a worktree whose folder is already gone", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-11", base: "main" });
    rmSync(path, { recursive: true, force: true });
    await git.removeWorktree(t.repo, path);
    expect((await git.listWorktrees(t.repo)).map((w) => w.path)).toEqual([t.repo]);
  });
});

describe("another process's `git worktree add` in flight", () => {
  /**
   * Adds worktree `name` (branch fixpoint/t-1) and branch fixpoint/t-2, then empties the worktree's
   * admin `commondir`, as a concurrent `worktree add` leaves it for a moment. Adding a worktree for
   * the existing branch t-2 makes git check every worktree's HEAD, this one's too.
   */
  async function halfWritten(name: string): Promise<{ restore: () => void }> {
    await git.ensureWorktree({ repo: t.repo, path: join(t.dir, name), branch: "fixpoint/t-1", base: "main" });
    t.git(["branch", "fixpoint/t-2", "main"]);
    const file = join(t.repo, ".git", "worktrees", name, "commondir");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, "");
    return { restore: () => writeFileSync(file, text) };
  }

  it("a worktree whose admin files are still being written is waited for, not a failure", async () => {
    const busy = await halfWritten("busy");
    const timer = setTimeout(busy.restore, 150);
    try {
      // An existing branch: git checks every worktree's HEAD before adding one for it.
      const path = join(t.dir, "t-2");
      const r = await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-2", base: "main" });
      expect(r).toEqual({ path, created: true });
      expect(await git.listWorktrees(t.repo)).toContainEqual({ path, branch: "fixpoint/t-2" });
    } finally {
      clearTimeout(timer);
    }
  });

  it("an admin folder that stays broken is still reported, after a bounded wait", async () => {
    await halfWritten("broken");
    const started = Date.now();
    const err = await git
      .ensureWorktree({ repo: t.repo, path: join(t.dir, "t-2"), branch: "fixpoint/t-2", base: "main" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixpointError);
    expect((err as FixpointError).message).toMatch(/worktrees\/broken\/commondir/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("a killed worker's `git worktree add` still running when the task is taken over", () => {
  it("a worktree still being checked out (locked `initializing`) is waited for, then reused", async () => {
    const path = join(t.dir, "wt");
    t.git(["worktree", "add", "--lock", "--reason", "initializing", "-b", "fixpoint/t-1", path, "main"]);
    await expectWaitedThenReused(git, t.repo, path, "fixpoint/t-1", () =>
      t.git(["worktree", "unlock", path]),
    );
  });

  it("the branch appearing between the check and `worktree add -b`: the finished worktree is reused", async () => {
    const path = join(t.dir, "wt");
    // The orphaned git of the dead worker wins the race right before this worker's add.
    let raced = false;
    const racing = beforeEachAdd(async (cwd, real) => {
      if (raced) return;
      raced = true;
      await real.run(cwd, ["worktree", "add", "-b", "fixpoint/t-1", path, "main"]);
    });
    const r = await ensureWorktree(racing, {
      repo: t.repo,
      path,
      branch: "fixpoint/t-1",
      base: "main",
      byHand: false,
    });
    expect(raced).toBe(true);
    expect(r).toEqual({ path, created: false });
    expect(await git.listWorktrees(t.repo)).toContainEqual({ path, branch: "fixpoint/t-1" });
  });
});

// git's `worktree add -b` is still what adds a worktree outside a plain layout (worktree-add.ts).
describe("another worker's `git worktree prune` while this worker's `worktree add` runs", () => {
  // What git says when the prune removed `.git/worktrees/wt` between its making the folder and
  // writing `locked` into it, or removed an empty `.git/worktrees` right before its making one.
  it.each([
    "could not open '.git/worktrees/wt/locked' for writing: No such file or directory",
    "could not create directory of '.git/worktrees/wt': No such file or directory",
    "could not create leading directories of '/repo/.git/worktrees/wt': No such file or directory",
  ])("the add that lost its registration half-way (its branch made) is made again: %s", async (said) => {
    const path = join(t.dir, "wt");
    // As git leaves it: the branch of `-b` made, no worktree, no folder.
    let failed = false;
    const pruned = beforeEachAdd(async (cwd, real) => {
      if (failed) return;
      failed = true;
      await real.run(cwd, ["branch", "fixpoint/t-1", "main"]);
      throw new FixpointError("git", `git worktree failed: fatal: ${said}`);
    });
    const r = await ensureWorktree(pruned, {
      repo: t.repo,
      path,
      branch: "fixpoint/t-1",
      base: "main",
      byHand: false,
    });
    expect(failed).toBe(true);
    expect(r).toEqual({ path, created: true });
    expect(await git.listWorktrees(t.repo)).toContainEqual({ path, branch: "fixpoint/t-1" });
    expect(t.read("README.md", path)).toBe("hello\n");
  });

  it("a file under .git/worktrees that cannot be written for another reason is reported at once", async () => {
    let adds = 0;
    const never = beforeEachAdd(async () => {
      adds++;
      throw new FixpointError(
        "git",
        "git worktree failed: fatal: could not open '.git/worktrees/wt/locked' for writing: Permission denied",
      );
    });
    const err = await ensureWorktree(never, {
      repo: t.repo,
      path: join(t.dir, "wt"),
      branch: "fixpoint/t-1",
      base: "main",
      byHand: false,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixpointError);
    expect((err as FixpointError).message).toMatch(/Permission denied/);
    expect(adds).toBe(1);
  });
});
