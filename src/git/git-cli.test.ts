import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
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

async function taskWorktree(id: string): Promise<string> {
  const path = join(t.dir, "wt", id);
  await git.ensureWorktree({ repo: t.repo, path, branch: `fixpoint/${id}`, base: "main" });
  return path;
}

describe("commitAll", () => {
  it("returns null and makes no commit when nothing changed", async () => {
    const head = t.git(["rev-parse", "HEAD"]);
    expect(await git.commitAll(t.repo, "Nothing")).toBeNull();
    expect(t.git(["rev-parse", "HEAD"])).toBe(head);
  });

  it("commits new, changed and deleted files and returns the new sha", async () => {
    const wt = await taskWorktree("t-1");
    t.write("src/new.ts", "export {};\n", wt);
    t.write("README.md", "changed\n", wt);
    const sha = await git.commitAll(wt, "Address review feedback (cycle 1)\n\nDetails here.");

    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(t.git(["rev-parse", "HEAD"], wt)).toBe(sha);
    expect(t.git(["log", "-1", "--format=%B"], wt)).toBe(
      "Address review feedback (cycle 1)\n\nDetails here.",
    );
    expect(await git.status(wt)).toEqual([]);
    expect(t.git(["show", "--name-only", "--format=", "HEAD"], wt).split("\n").sort()).toEqual([
      "README.md",
      "src/new.ts",
    ]);
  });

  it("commits without any configured identity, as fixpoint", async () => {
    t.write("a.txt", "a\n");
    await git.commitAll(t.repo, "No identity");
    expect(t.git(["log", "-1", "--format=%an <%ae>"])).toBe("fixpoint <fixpoint@localhost>");
  });

  it("uses the repository's configured identity when there is one", async () => {
    t.git(["config", "user.name", "Ada Lovelace"]);
    t.git(["config", "user.email", "ada@example.com"]);
    t.write("a.txt", "a\n");
    await git.commitAll(t.repo, "With identity");
    expect(t.git(["log", "-1", "--format=%an <%ae>"])).toBe("Ada Lovelace <ada@example.com>");
  });

  it("falls back only for the part of the identity that is missing, and takes a key's last value", async () => {
    t.git(["config", "user.name", "Ada Lovelace"]);
    t.git(["config", "--add", "user.name", "Grace Hopper"]);
    t.write("a.txt", "a\n");
    await git.commitAll(t.repo, "Half an identity");
    expect(t.git(["log", "-1", "--format=%an <%ae>"])).toBe("Grace Hopper <fixpoint@localhost>");
  });

  it("does not run the repository's hooks or try to sign", async () => {
    t.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 1\n");
    chmodSync(join(t.repo, ".git/hooks/pre-commit"), 0o755);
    t.write(".git/hooks/commit-msg", "#!/bin/sh\nexit 1\n");
    chmodSync(join(t.repo, ".git/hooks/commit-msg"), 0o755);
    t.git(["config", "commit.gpgsign", "true"]);
    t.git(["config", "gpg.program", "/nonexistent/gpg"]);
    t.write("b.txt", "b\n");
    expect(await git.commitAll(t.repo, "Hooks off")).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe("history and diffs", () => {
  it("commitsBetween lists commits the agent made itself, oldest first", async () => {
    const wt = await taskWorktree("t-2");
    const start = await git.headSha(wt);
    const first = t.commit({ "one.txt": "1\n" }, "Agent: first", wt);
    const second = t.commit({ "two.txt": "2\n" }, "Agent: second", wt);

    expect(await git.commitsBetween(wt, start, "HEAD")).toEqual([
      { sha: first, subject: "Agent: first" },
      { sha: second, subject: "Agent: second" },
    ]);
    expect(await git.commitsBetween(wt, second, "HEAD")).toEqual([]);
  });

  it("diff with mergeBase shows only the branch's own changes, not later base commits", async () => {
    const wt = await taskWorktree("t-3");
    t.commit({ "feature.txt": "feature line\n" }, "Feature", wt);
    t.commit({ "base-only.txt": "moved on\n" }, "Base moves on");

    const own = await git.diff(wt, "main", { mergeBase: true });
    expect(own).toContain("diff --git a/feature.txt b/feature.txt");
    expect(own).toContain("+feature line");
    expect(own).not.toContain("base-only.txt");

    const direct = await git.diff(wt, "main");
    expect(direct).toContain("feature.txt");
    expect(direct).toContain("-moved on");
  });

  it("changedFiles lists paths changed between two revisions", async () => {
    const wt = await taskWorktree("t-4");
    const start = await git.headSha(wt);
    t.commit({ "a b.txt": "x\n", "dir/ü.txt": "y\n" }, "Two files", wt);
    expect((await git.changedFiles(wt, start)).sort()).toEqual(["a b.txt", "dir/ü.txt"]);
  });

  it("trackedFiles lists every tracked path, untracked files left out", async () => {
    const wt = await taskWorktree("t-5");
    t.commit({ "a b.txt": "x\n", "dir/ü.txt": "y\n" }, "Two files", wt);
    writeFileSync(join(wt, "loose.txt"), "not added\n");
    const files = await git.trackedFiles(wt);
    expect(files).toEqual(expect.arrayContaining(["a b.txt", "dir/ü.txt"]));
    expect(files).not.toContain("loose.txt");
  });

  it("refuses revisions that git would read as options, and writes nothing", async () => {
    const target = join(t.dir, "pwned.txt");
    await expect(git.diff(t.repo, `--output=${target}`)).rejects.toMatchObject({ code: "git" });
    await expect(git.revParse(t.repo, "--all")).rejects.toMatchObject({ code: "git" });
    expect(existsSync(target)).toBe(false);
  });
});

describe("queries", () => {
  it("answers repoRoot, currentBranch, revParse, branchExists and status", async () => {
    const sub = join(t.repo, "sub");
    mkdirSync(sub);
    expect(await git.repoRoot(sub)).toBe(t.repo);
    expect(await git.repoRoot(t.dir)).toBeNull();
    expect(await git.currentBranch(t.repo)).toBe("main");
    expect(await git.revParse(t.repo, "main")).toBe(t.git(["rev-parse", "main"]));
    expect(await git.revParse(t.repo, "no-such-ref")).toBeNull();
    expect(await git.branchExists(t.repo, "main")).toBe(true);
    expect(await git.branchExists(t.repo, "nope")).toBe(false);

    t.write("new.txt", "n\n");
    expect(await git.status(t.repo)).toEqual(["?? new.txt"]);

    t.git(["checkout", "-q", "--detach"]);
    expect(await git.currentBranch(t.repo)).toBeNull();
  });

  it("turns git failures into FixpointError('git') with git's message", async () => {
    const emptyDir = join(t.dir, "not-a-repo");
    mkdirSync(emptyDir);
    await expect(git.headSha(emptyDir)).rejects.toMatchObject({
      code: "git",
      message: expect.stringMatching(/^git rev-parse failed: fatal: not a git repository/),
    });
    await expect(git.headSha(join(t.dir, "missing"))).rejects.toMatchObject({
      code: "git",
      message: expect.stringContaining("folder does not exist"),
    });
  });

  it("reports a missing git binary as an environment problem", async () => {
    const noGit = createGit({ gitPath: join(t.dir, "no-such-git") });
    // headSha reads .git itself; status always runs git.
    await expect(noGit.status(t.repo)).rejects.toMatchObject({
      code: "environment",
      message: "git is not installed or not on PATH",
    });
  });
});
