import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Git } from "../domain/git.js";
import { readHead, WALK_LIMIT } from "./fs-state.js";
import { createGit } from "./git-cli.js";
import { createTempRepo, ISOLATED_GIT_ENV, loggingGit, type TempRepo } from "./temp-repo.js";

/**
 * Issue 10: one git process per stage, or none. A wrapper script stands in for git and logs each
 * invocation's subcommand, so the test counts real processes while real git does the work.
 */
let t: TempRepo;
let git: Git;
let wrapper: ReturnType<typeof loggingGit>;

beforeEach(() => {
  t = createTempRepo();
  wrapper = loggingGit(t.dir);
  git = createGit({ gitPath: wrapper.path, env: ISOLATED_GIT_ENV });
});
afterEach(() => t.cleanup());

/** Subcommands run since the last call. */
const spawned = (): string[] => wrapper.spawned();

/** One stage as the engine runs it: head before, the agent's work, then commit what it left. */
async function stage(work: () => void, message: string): Promise<{ before: string; after: string | null }> {
  const before = await git.headSha(t.repo);
  work();
  const after = await git.commitAll(t.repo, message);
  return { before, after };
}

describe("git processes per stage", () => {
  it("a stage that changed nothing runs no git process; one that edited a file runs one", async () => {
    // The first stage in a folder has nothing to compare with: it asks git in full.
    await stage(() => t.write("a.txt", "one\n"), "first");
    spawned();

    const idle = await stage(() => {}, "idle");
    expect(idle.after).toBeNull();
    expect(spawned()).toEqual([]);

    const edit = await stage(() => t.write("a.txt", "two\n"), "edit");
    expect(spawned()).toEqual(["commit"]);
    expect(edit.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(t.git(["show", "HEAD:a.txt"])).toBe("two");

    const removal = await stage(() => rmSync(join(t.repo, "a.txt")), "remove");
    expect(spawned()).toEqual(["commit"]);
    expect(t.git(["ls-files"])).toBe("README.md");
    expect(removal.after).toBe(t.git(["rev-parse", "HEAD"]));
  });

  it("a new file is still committed (add, then commit) and nothing is left behind", async () => {
    await stage(() => {}, "first");
    spawned();
    const added = await stage(() => t.write("src/new.ts", "export {};\n"), "new file");
    expect(spawned()).toEqual(["add", "commit"]);
    expect(await stage(() => {}, "idle")).toMatchObject({ after: null });
    expect(spawned()).toEqual([]);
    expect(added.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(t.git(["status", "--porcelain"])).toBe("");
  });

  it("notices a commit the agent made itself, and a file someone else staged", async () => {
    await stage(() => {}, "first");
    spawned();
    const own = await stage(() => t.commit({ "b.txt": "b\n" }, "agent's own commit"), "after agent");
    // HEAD moved, so git is asked in full; there was nothing left to commit.
    expect(own.after).toBeNull();
    expect(await git.headSha(t.repo)).toBe(t.git(["rev-parse", "HEAD"]));
    // Anyone else's git command may rewrite the index: then git is asked in full, never trusted blind.
    t.write("c.txt", "c\n");
    t.git(["add", "c.txt"]);
    spawned();
    const staged = await stage(() => {}, "after a staged file");
    expect(spawned()).toEqual(["add", "commit"]);
    expect(staged.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(t.git(["show", "--name-only", "--format=", "HEAD"])).toBe("c.txt");
  });

  it("in a worktree fixpoint has just created, the first stage costs no more than a later one", async () => {
    const wt = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path: wt, branch: "fixpoint/t-1", base: "main" });
    spawned();
    const commit = (message: string) => git.commitAll(wt, message);

    expect(await commit("idle first stage")).toBeNull();
    expect(spawned()).toEqual([]);

    writeFileSync(join(wt, "README.md"), "edited\n");
    const edited = await commit("edit a file the checkout wrote");
    // The identity is looked up once per folder (one process for both keys), then `commit -a`.
    expect(spawned()).toEqual(["config", "commit"]);
    expect(edited).toBe(t.git(["rev-parse", "HEAD"], wt));
    expect(t.git(["show", "HEAD:README.md"], wt)).toBe("edited");

    writeFileSync(join(wt, "new.txt"), "new\n");
    expect(await commit("a new file")).toBe(t.git(["rev-parse", "HEAD"], wt));
    expect(spawned()).toEqual(["add", "commit"]);
    expect(t.git(["status", "--porcelain"], wt)).toBe("");
  });

  it("a worktree it found already there is asked about in full: it may hold what a crash left", async () => {
    const wt = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path: wt, branch: "fixpoint/t-1", base: "main" });
    writeFileSync(join(wt, "left.txt"), "left by a killed worker\n");
    const again = createGit({ gitPath: wrapper.path, env: ISOLATED_GIT_ENV });
    expect(
      await again.ensureWorktree({ repo: t.repo, path: wt, branch: "fixpoint/t-1", base: "main" }),
    ).toEqual({
      path: wt,
      created: false,
    });
    expect(await again.commitAll(wt, "keep it")).toBe(t.git(["rev-parse", "HEAD"], wt));
    expect(t.git(["show", "HEAD:left.txt"], wt)).toBe("left by a killed worker");
  });

  it("a project with a folder git ignores, larger than a walk takes: an idle stage runs no git process", async () => {
    t.commit({ ".gitignore": "node_modules/\n*.log\n" }, "ignore rules");
    const many = join(t.repo, "node_modules", "pkg");
    mkdirSync(many, { recursive: true });
    for (let i = 0; i <= WALK_LIMIT; i++) writeFileSync(join(many, `f${i}.js`), "x\n");
    spawned();

    // The first stage finds too much to walk and asks git, once, what it ignores (then, like every
    // first stage in a folder, everything else: who commits, what to add).
    await stage(() => {}, "first");
    expect(spawned()).toEqual(["ls-files", "config", "add", "commit"]);
    const idle = await stage(() => writeFileSync(join(many, "more.js"), "y\n"), "idle");
    expect(idle.after).toBeNull();
    expect(spawned()).toEqual([]);

    const edit = await stage(() => t.write("README.md", "edited\n"), "edit");
    expect(spawned()).toEqual(["commit"]);
    expect(edit.after).toBe(t.git(["rev-parse", "HEAD"]));

    // A new file git ignores: asked in full, nothing to commit, and from then on left out.
    expect((await stage(() => t.write("debug.log", "one\n"), "a log")).after).toBeNull();
    expect(spawned()).toEqual(["add", "commit", "ls-files"]);
    expect((await stage(() => t.write("debug.log", "one\ntwo\n"), "the log grows")).after).toBeNull();
    expect(spawned()).toEqual([]);

    // Rules that stop ignoring it: the file is committed with them.
    const rules = await stage(() => t.write(".gitignore", "node_modules/\n"), "stop ignoring logs");
    expect(rules.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(t.git(["show", "HEAD:debug.log"])).toBe("one\ntwo");
    expect(spawned()).toEqual(["add", "commit", "ls-files"]);
    expect(t.git(["status", "--porcelain"])).toBe("");

    // A file in the ignored folder, added by force: tracked from then on, its edits committed.
    await stage(() => {
      t.write("node_modules/keep.js", "first\n");
      t.git(["add", "-f", "node_modules/keep.js"]);
    }, "force-add a file git ignores");
    expect(t.git(["ls-files", "node_modules"])).toBe("node_modules/keep.js");
    spawned();
    const kept = await stage(() => t.write("node_modules/keep.js", "second\n"), "edit the tracked file");
    expect(kept.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(t.git(["show", "HEAD:node_modules/keep.js"])).toBe("second");
    spawned();
    expect((await stage(() => t.write("node_modules/keep.js", "third\n"), "edit it again")).after).toBe(
      t.git(["rev-parse", "HEAD"]),
    );
    expect(spawned()).toEqual(["commit"]);

    // The ignored folder made by the agent after the list: asked again when the walk gives up.
    const built = join(t.repo, "node_modules", "built");
    const made = await stage(() => {
      mkdirSync(built);
      for (let i = 0; i <= WALK_LIMIT; i++) writeFileSync(join(built, `b${i}.js`), "b\n");
      t.write("src/new.ts", "export {};\n");
    }, "install and a new file");
    expect(made.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(t.git(["ls-files", "src"])).toBe("src/new.ts");
    spawned();
    expect((await stage(() => {}, "idle again")).after).toBeNull();
    expect(spawned()).toEqual([]);
  });

  it("a project with more tracked files than a walk takes: one `git status` tells an idle stage", async () => {
    const src = join(t.repo, "src");
    mkdirSync(src);
    for (let i = 0; i <= WALK_LIMIT; i++)
      writeFileSync(join(src, `m${i}.ts`), `export const m${i} = ${i};\n`);
    t.git(["add", "-A"]);
    t.git(["commit", "-q", "-m", "many files"]);
    spawned();
    // The first stage also asks, once, whether what makes the walk give up is ignored (it is not).
    expect((await stage(() => {}, "first")).after).toBeNull();
    expect(spawned()).toEqual(["ls-files", "status"]);
    expect((await stage(() => {}, "idle")).after).toBeNull();
    expect(spawned()).toEqual(["status"]);

    const edit = await stage(() => t.write("src/m7.ts", "export const m7 = 'seven';\n"), "edit");
    expect(edit.after).toBe(t.git(["rev-parse", "HEAD"]));
    // Who commits is looked up once per folder, at its first commit.
    expect(spawned()).toEqual(["status", "config", "commit"]);

    const renamed = await stage(() => t.git(["mv", "src/m8.ts", "src/eight.ts"]), "a staged rename");
    expect(renamed.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(spawned()).toEqual(["status", "commit"]);

    const added = await stage(() => t.write("src/new.ts", "export {};\n"), "a new file");
    expect(added.after).toBe(t.git(["rev-parse", "HEAD"]));
    expect(t.git(["ls-files", "src/new.ts"])).toBe("src/new.ts");
    expect(spawned()).toEqual(["status", "add", "commit"]);
    expect(t.git(["status", "--porcelain"])).toBe("");
  });

  it("a rewritten .gitignore that stops ignoring a file takes the file in, without an ignored list", async () => {
    t.commit({ ".gitignore": "secret.txt\n" }, "ignore one file");
    t.write("secret.txt", "kept out\n");
    await stage(() => {}, "first");
    spawned();
    expect((await stage(() => {}, "idle")).after).toBeNull();
    expect(spawned()).toEqual([]);
    await stage(() => t.write(".gitignore", "\n"), "ignore nothing");
    expect(t.git(["show", "HEAD:secret.txt"])).toBe("kept out");
    expect(t.git(["status", "--porcelain"])).toBe("");
  });

  it("reads HEAD without git, in the main checkout, a linked worktree and with packed refs", async () => {
    const wt = join(t.dir, "wt");
    await git.ensureWorktree({ repo: t.repo, path: wt, branch: "fixpoint/t-1", base: "main" });
    expect(readHead(t.repo)).toBe(t.git(["rev-parse", "HEAD"]));
    expect(readHead(wt)).toBe(t.git(["rev-parse", "HEAD"], wt));
    t.git(["pack-refs", "--all"]);
    expect(readHead(t.repo)).toBe(t.git(["rev-parse", "HEAD"]));
    t.git(["checkout", "-q", "--detach"]);
    expect(readHead(t.repo)).toBe(t.git(["rev-parse", "HEAD"]));
    expect(readHead(join(t.repo, "sub"))).toBeNull();
  });
});
