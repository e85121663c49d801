import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { beforeEachAdd, expectWaitedThenReused } from "../../test/helpers/worktree-races.js";
import type { Git } from "../domain/git.js";
import { FixpointError } from "../errors.js";
import { createGit } from "./git-cli.js";
import { createTempRepo, ISOLATED_GIT_ENV, loggingGit, type TempRepo } from "./temp-repo.js";
import { ownLock } from "./worktree-add.js";
import { ensureWorktree } from "./worktrees.js";

let t: TempRepo;
let git: Git;

beforeEach(() => {
  t = createTempRepo();
  git = createGit({ env: ISOLATED_GIT_ENV });
});
afterEach(() => t.cleanup());

describe("a new branch's worktree added by hand, as git adds it (worktree-add.ts)", () => {
  const porcelain = () => t.git(["worktree", "list", "--porcelain"]);
  const record = (name: string, file: string) =>
    readFileSync(join(t.repo, ".git", "worktrees", name, file), "utf8");

  it("is laid out as `git worktree add -b` lays it out, with no `git worktree` command, and git treats it as its own", async () => {
    const logged = loggingGit(t.dir);
    const g = createGit({ env: ISOLATED_GIT_ENV, gitPath: logged.path });
    const path = join(t.dir, "wts", "t-20");
    const byGit = join(t.dir, "wts", "t-21");
    t.git(["worktree", "add", "-q", "-b", "fixpoint/t-21", byGit, "main"]);
    logged.spawned();

    expect(await g.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-20", base: "main" })).toEqual({
      path,
      created: true,
    });

    expect(logged.spawned()).toEqual(["show-ref", "branch", "reset"]);
    expect(t.read("README.md", path)).toBe("hello\n");
    expect(t.git(["status", "--porcelain"], path)).toBe("");
    expect(t.git(["rev-parse", "--abbrev-ref", "HEAD"], path)).toBe("fixpoint/t-20");
    expect(porcelain()).toContain(
      `worktree ${path}\nHEAD ${t.git(["rev-parse", "main"])}\nbranch refs/heads/fixpoint/t-20\n`,
    );
    expect(porcelain()).not.toContain("locked");
    // The same files as git's own record, saying the same things.
    const files = (name: string) => readdirSync(join(t.repo, ".git", "worktrees", name)).sort();
    expect(files("t-20")).toEqual(files("t-21"));
    expect(record("t-20", "commondir")).toBe(record("t-21", "commondir"));
    expect(record("t-20", "HEAD")).toBe("ref: refs/heads/fixpoint/t-20\n");
    expect(record("t-20", "gitdir")).toBe(`${join(path, ".git")}\n`);
    expect(readFileSync(join(path, ".git"), "utf8")).toBe(
      `gitdir: ${join(t.repo, ".git", "worktrees", "t-20")}\n`,
    );

    // Git's own commands on it: commit, prune (keeps it), remove.
    t.commit({ "work.ts": "x\n" }, "Work", path);
    t.git(["worktree", "prune"]);
    expect(porcelain()).toContain(`worktree ${path}\n`);
    t.git(["worktree", "remove", path]);
    expect(existsSync(path)).toBe(false);
    expect(porcelain()).not.toContain(path);
  });

  it("leaves a repository with sparse checkout to git, which copies its patterns", async () => {
    const logged = loggingGit(t.dir);
    const g = createGit({ env: ISOLATED_GIT_ENV, gitPath: logged.path });
    mkdirSync(join(t.repo, ".git", "info"), { recursive: true });
    writeFileSync(join(t.repo, ".git", "info", "sparse-checkout"), "/*\n");
    logged.spawned();
    const path = join(t.dir, "wt");
    await g.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-22", base: "main" });
    expect(logged.spawned()).toEqual(["show-ref", "worktree"]);
    expect(t.read("README.md", path)).toBe("hello\n");
  });

  it("undoes a failed checkout and has git add the worktree from the branch: one record, no lock", async () => {
    let failed = 0;
    const failing = beforeEachAdd(
      async () => {
        if (failed++ === 0) throw new FixpointError("git", "git reset failed: fatal: disk quota exceeded");
      },
      (args) => args[0] === "reset",
    );
    const path = join(t.dir, "wt");
    const r = await ensureWorktree(failing, { repo: t.repo, path, branch: "fixpoint/t-23", base: "main" });
    expect(failed).toBeGreaterThan(0);
    expect(r).toEqual({ path, created: true });
    expect(t.read("README.md", path)).toBe("hello\n");
    expect(porcelain().match(/^worktree /gm)).toHaveLength(2);
    expect(porcelain()).not.toContain("locked");
    expect(t.git(["status", "--porcelain"], path)).toBe("");
  });

  /** The pid of a process that has ended. */
  function deadPid(): number {
    const pid = spawnSync(process.execPath, ["-e", "0"]).pid;
    if (pid === undefined) throw new Error("no child");
    return pid;
  }

  /** Leaves the folder at `path` as a worker killed at some step of its add by hand leaves it. */
  const emptied = (path: string) => {
    rmSync(path, { recursive: true });
    mkdirSync(path);
  };
  it.each([
    ["during the checkout (a file missing)", (path: string) => rmSync(join(path, "README.md"))],
    ["before its folder named the record (an empty folder)", emptied],
    [
      "while writing its folder's `.git` (a folder holding only that)",
      (path: string) => {
        emptied(path);
        writeFileSync(join(path, ".git"), "gitd");
      },
    ],
    [
      "while deleting the folder in place, as before removeFolder (its `.git` gone, files left)",
      (path: string) => rmSync(join(path, ".git")),
    ],
  ])(
    "a worker killed %s: its record, locked by a process gone, is removed and the worktree added again",
    async (_, leave) => {
      const path = join(t.dir, "wt");
      await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-24", base: "main" });
      writeFileSync(join(t.repo, ".git", "worktrees", "wt", "locked"), ownLock(deadPid()));
      leave(path);

      const r = await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-24", base: "main" });

      expect(r).toEqual({ path, created: true });
      expect(t.read("README.md", path)).toBe("hello\n");
      expect(t.git(["status", "--porcelain"], path)).toBe("");
      expect(porcelain().match(/^worktree /gm)).toHaveLength(2);
      expect(porcelain()).not.toContain("locked");
    },
  );

  it("an add by hand still running in a live process is waited for, then reused", async () => {
    const path = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path, branch: "fixpoint/t-26", base: "main" });
    const lock = join(t.repo, ".git", "worktrees", "wt", "locked");
    writeFileSync(lock, ownLock());
    await expectWaitedThenReused(git, t.repo, path, "fixpoint/t-26", () => rmSync(lock));
  });

  it("the branch made by another process right before this one's `git branch`: its finished worktree is reused", async () => {
    const path = join(t.dir, "wt");
    let raced = false;
    const racing = beforeEachAdd(
      async (cwd, real) => {
        if (raced) return;
        raced = true;
        await real.run(cwd, ["worktree", "add", "-b", "fixpoint/t-27", path, "main"]);
      },
      (args) => args[0] === "branch",
    );
    const r = await ensureWorktree(racing, { repo: t.repo, path, branch: "fixpoint/t-27", base: "main" });
    expect(raced).toBe(true);
    expect(r).toEqual({ path, created: false });
    expect(porcelain().match(/^worktree /gm)).toHaveLength(2);
  });
});
