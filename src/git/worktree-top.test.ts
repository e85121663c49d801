import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGitSync } from "./exec.js";
import { worktreeTop } from "./fs-state.js";
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from "./temp-repo.js";

/** What git itself answers: the top level, or null outside any repository. */
function gitTop(cwd: string): string | null {
  try {
    return runGitSync(cwd, ["rev-parse", "--show-toplevel"], { env: ISOLATED_GIT_ENV }).trim();
  } catch {
    return null;
  }
}

describe("worktreeTop: the top level read from the files, or null to ask git", () => {
  let t: TempRepo;
  let places: string[];

  beforeAll(() => {
    t = createTempRepo();
    // A subfolder, a linked worktree and its subfolder, a repository nested in the first, a
    // folder outside any repository, a symlink into the repository, and the inside of `.git`.
    t.write("src/deep/file.txt", "x\n");
    t.git(["add", "-A"]);
    t.git(["commit", "-q", "-m", "files"]);
    const linked = join(t.dir, "linked");
    t.git(["worktree", "add", "-q", "-b", "side", linked]);
    mkdirSync(join(linked, "sub"), { recursive: true });
    const nested = join(t.repo, "vendor", "nested");
    mkdirSync(nested, { recursive: true });
    runGitSync(nested, ["init", "-q", "-b", "main"], { env: ISOLATED_GIT_ENV });
    mkdirSync(join(nested, "inner"));
    const outside = join(t.dir, "outside", "a");
    mkdirSync(outside, { recursive: true });
    symlinkSync(join(t.repo, "src"), join(t.dir, "link-to-src"));
    // A `.git` file naming a folder that does not exist (a pruned worktree).
    const broken = join(t.dir, "broken");
    mkdirSync(broken);
    writeFileSync(join(broken, ".git"), `gitdir: ${join(t.dir, "nowhere")}\n`);
    places = [
      t.repo,
      join(t.repo, "src"),
      join(t.repo, "src", "deep"),
      linked,
      join(linked, "sub"),
      nested,
      join(nested, "inner"),
      join(t.repo, "vendor"),
      outside,
      join(t.dir, "link-to-src"),
      join(t.repo, ".git"),
      join(t.repo, ".git", "refs"),
      broken,
    ];
  });
  afterAll(() => t.cleanup());

  it("agrees with git wherever it answers, and answers in every plain place", () => {
    for (const cwd of places) {
      const mine = worktreeTop(cwd, {});
      if (mine !== null) expect(mine, cwd).toBe(gitTop(cwd));
    }
    for (const cwd of [
      t.repo,
      join(t.repo, "src", "deep"),
      join(t.dir, "linked", "sub"),
      join(t.repo, "vendor", "nested", "inner"),
    ]) {
      expect(worktreeTop(cwd, {})).toBe(gitTop(cwd));
    }
    expect(worktreeTop(join(t.dir, "link-to-src"), {})).toBe(t.repo);
  });

  it("leaves to git: no repository, the inside of .git, a broken gitdir, and variables that move discovery", () => {
    expect(worktreeTop(join(t.dir, "outside", "a"), {})).toBeNull();
    expect(worktreeTop(join(t.repo, ".git", "refs"), {})).toBeNull();
    expect(worktreeTop(join(t.dir, "broken"), {})).toBeNull();
    expect(worktreeTop(t.repo, { GIT_DIR: join(t.repo, ".git") })).toBeNull();
    expect(worktreeTop(t.repo, { GIT_CEILING_DIRECTORIES: t.dir })).toBeNull();
    expect(worktreeTop(join(t.dir, "no such folder"), {})).toBeNull();
  });
});
