import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Git } from "../domain/git.js";
import { FixpointError } from "../errors.js";
import { createGit } from "./git-cli.js";
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from "./temp-repo.js";

let t: TempRepo;
let git: Git;
let bare: string;
let other: string;

beforeEach(() => {
  t = createTempRepo();
  git = createGit({ env: ISOLATED_GIT_ENV });
  bare = join(t.dir, "remote.git");
  t.git(["init", "-q", "--bare", bare], t.dir);
  t.git(["remote", "add", "origin", bare]);
  t.git(["push", "-q", "origin", "main"]);
  other = join(t.dir, "other");
  t.git(["clone", "-q", bare, other], t.dir);
});
afterEach(() => t.cleanup());

const BRANCH = "fixpoint/t-1-work";

async function refused(p: Promise<unknown>): Promise<FixpointError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof FixpointError)) throw new Error(`expected a FixpointError, got ${String(e)}`);
  return e;
}

describe("pushWithLease", () => {
  it("creates the branch against an 'absent' lease, then moves it against the sha it pushed", async () => {
    t.git(["checkout", "-q", "-b", BRANCH]);
    const first = t.commit({ "a.txt": "a\n" }, "A");
    await git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha: first, expected: null });
    expect(await git.remoteBranchSha(t.repo, "origin", BRANCH)).toBe(first);
    const second = t.commit({ "b.txt": "b\n" }, "B");
    await git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha: second, expected: first });
    expect(await git.remoteBranchSha(other, "origin", BRANCH)).toBe(second);
  });

  it("refuses, naming the remote and the branch, when the remote moved since the lease", async () => {
    t.git(["checkout", "-q", "-b", BRANCH]);
    const first = t.commit({ "a.txt": "a\n" }, "A");
    await git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha: first, expected: null });
    // Another clone replaces the branch meanwhile.
    t.git(["checkout", "-q", "-b", BRANCH], other);
    const theirs = t.commit({ "c.txt": "c\n" }, "C", other);
    t.git(["push", "-q", "--force", "origin", BRANCH], other);
    const mine = t.commit({ "b.txt": "b\n" }, "B");
    const e = await refused(
      git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha: mine, expected: first }),
    );
    expect(e.code).toBe("git");
    expect(e.retryable).toBe(true);
    expect(e.message).toMatch(/push of fixpoint\/t-1-work to remote "origin" was refused/);
    expect(e.message.split("\n")).toHaveLength(1);
    expect(await git.remoteBranchSha(t.repo, "origin", BRANCH)).toBe(theirs);
    // An "absent" lease is refused too once the branch exists.
    const again = await refused(
      git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha: mine, expected: null }),
    );
    expect(again.message).toMatch(/refused/);
  });

  it("replaces commits no checkpoint names when leased against exactly them", async () => {
    t.git(["checkout", "-q", "-b", BRANCH]);
    const base = t.commit({ "a.txt": "a\n" }, "A");
    const lost = t.commit({ "lost.txt": "x\n" }, "pushed, checkpoint lost");
    await git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha: lost, expected: null });
    await git.resetHard(t.repo, base);
    const redo = t.commit({ "b.txt": "b\n" }, "B");
    await git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha: redo, expected: lost });
    expect(await git.remoteBranchSha(t.repo, "origin", BRANCH)).toBe(redo);
  });

  it("a remote whose hook declines the push: git's reason, retryable", async () => {
    const hook = join(bare, "hooks", "pre-receive");
    writeFileSync(hook, "#!/bin/sh\necho 'no pushes today' >&2\nexit 1\n", { mode: 0o755 });
    t.git(["checkout", "-q", "-b", BRANCH]);
    const sha = t.commit({ "a.txt": "a\n" }, "A");
    const e = await refused(
      git.pushWithLease(t.repo, { remote: "origin", branch: BRANCH, sha, expected: null }),
    );
    expect(e.retryable).toBe(true);
    expect(e.message).toMatch(/remote "origin" was refused: .*pre-receive hook declined/);
    expect(await git.remoteBranchSha(t.repo, "origin", BRANCH)).toBeNull();
  });

  it("a remote that does not exist fails with one line naming it", async () => {
    const e = await refused(
      git.pushWithLease(t.repo, { remote: "nowhere", branch: BRANCH, sha: "HEAD", expected: null }),
    );
    expect(e.message).toMatch(/remote "nowhere" was refused/);
  });
});

describe("fetchBranch, isAncestor and resetHard", () => {
  it("brings another clone's branch here and puts a worktree at one of its commits", async () => {
    t.git(["checkout", "-q", "-b", BRANCH], other);
    const a = t.commit({ "a.txt": "a\n" }, "A", other);
    const b = t.commit({ "b.txt": "b\n" }, "B", other);
    t.git(["push", "-q", "origin", BRANCH], other);
    expect(await git.fetchBranch(t.repo, "origin", "fixpoint/absent")).toBeNull();
    expect(await git.fetchBranch(t.repo, "origin", BRANCH)).toBe(b);
    expect(await git.isAncestor(t.repo, a, b)).toBe(true);
    expect(await git.isAncestor(t.repo, b, a)).toBe(false);
    writeFileSync(join(t.repo, "stray.txt"), "left behind\n");
    await git.resetHard(t.repo, a);
    expect(t.git(["rev-parse", "HEAD"])).toBe(a);
    expect(await git.status(t.repo)).toEqual([]);
    expect(t.read("a.txt")).toBe("a\n");
  });

  it("an aborted fetch stops git and says so", async () => {
    const ctl = new AbortController();
    ctl.abort();
    const e = await refused(git.fetchBranch(t.repo, "origin", "main", { signal: ctl.signal }));
    expect(e.message).toMatch(/cancelled/);
  });

  it("refuses a remote or branch that would read as an option", async () => {
    await expect(git.fetchBranch(t.repo, "--upload-pack=touch x", "main")).rejects.toThrow(
      /invalid git remote/,
    );
    await expect(
      git.pushWithLease(t.repo, { remote: "origin", branch: "-x", sha: "HEAD", expected: null }),
    ).rejects.toThrow(/invalid git branch name/);
  });
});
