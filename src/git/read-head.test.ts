import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readHead } from "./fs-state.js";
import { createTempRepo, type TempRepo } from "./temp-repo.js";

describe("readHead: HEAD's commit read from the files", () => {
  let t: TempRepo | undefined;
  afterEach(() => t?.cleanup());

  it("follows a worktree removed and made again at the same place to its new branch", () => {
    t = createTempRepo();
    const repo = t;
    const place = join(repo.dir, "wt");
    repo.git(["worktree", "add", "-q", "-b", "first", place]);
    const first = repo.commit({ "a.txt": "one\n" }, "on first", place);
    expect(readHead(place)).toBe(first);
    // Asked again (it is remembered), and after a commit moves the branch.
    const second = repo.commit({ "a.txt": "two\n" }, "on first again", place);
    expect(readHead(place)).toBe(second);

    repo.git(["worktree", "remove", "--force", place]);
    repo.git(["worktree", "prune"]);
    // Another worktree at the same place, under another name: its `.git` file names another folder.
    repo.git(["worktree", "add", "-q", "-b", "other", place, "main"]);
    const other = repo.commit({ "b.txt": "b\n" }, "on other", place);
    expect(readHead(place)).toBe(other);
    expect(repo.git(["rev-parse", "HEAD"], place)).toBe(other);
  });

  it("reads a `.git` file rewritten in place to name another worktree's folder", () => {
    t = createTempRepo();
    const repo = t;
    const a = join(repo.dir, "a");
    const b = join(repo.dir, "b");
    repo.git(["worktree", "add", "-q", "-b", "ba", a]);
    repo.git(["worktree", "add", "-q", "-b", "bb", b]);
    const onA = repo.commit({ "x.txt": "a\n" }, "on a", a);
    const onB = repo.commit({ "x.txt": "bbbb\n" }, "on b", b);
    expect(readHead(a)).toBe(onA);
    writeFileSync(join(a, ".git"), `gitdir: ${repo.git(["rev-parse", "--absolute-git-dir"], b)}\n`);
    expect(readHead(a)).toBe(onB);
  });
});
