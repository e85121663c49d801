import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitRemote } from "./remote.js";

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@localhost",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@localhost",
  GIT_CONFIG_NOSYSTEM: "1",
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, env: ENV, encoding: "utf8" }).trim();

function commit(cwd: string, file: string, text: string): string {
  writeFileSync(join(cwd, file), text);
  git(cwd, "add", "-A");
  git(cwd, "commit", "-q", "-m", `edit ${file}`);
  return git(cwd, "rev-parse", "HEAD");
}

let root: string;
let origin: string;
let repo: string;
let other: string;
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "fixpoint-remote-")));
  origin = join(root, "origin.git");
  repo = join(root, "repo");
  other = join(root, "other");
  git(root, "init", "-q", "--bare", "-b", "main", origin);
  git(root, "init", "-q", "-b", "main", repo);
  commit(repo, "a.txt", "a\n");
  git(repo, "remote", "add", "origin", origin);
  git(repo, "push", "-q", "origin", "main");
  git(root, "clone", "-q", origin, other);
});

describe("createGitRemote", () => {
  it("pushes plainly, and reports a remote with commits we do not have as a refusal, never forcing", async () => {
    const remote = createGitRemote();
    const ours = commit(repo, "b.txt", "ours\n");
    expect(await remote.push(repo, "main")).toEqual({ ok: true });
    expect(await remote.remoteHead(repo, "main")).toBe(ours);

    git(other, "pull", "-q", "--rebase", "origin", "main");
    const theirs = commit(other, "c.txt", "someone else\n");
    git(other, "push", "-q", "origin", "HEAD:main");
    commit(repo, "d.txt", "more of ours\n");
    const r = await remote.push(repo, "main");
    expect(r).toMatchObject({ ok: false, rejected: true });
    expect(r.ok ? "" : r.reason).toContain("has commits fixpoint did not make");
    // Their commit is still the remote's head: nothing was overwritten.
    expect(git(origin, "rev-parse", "main")).toBe(theirs);
  });

  it("creates a missing local branch from the remote one, fast-forwards a stale one, leaves a diverged one alone", async () => {
    const remote = createGitRemote();
    git(other, "checkout", "-q", "-b", "feature");
    const first = commit(other, "f.txt", "1\n");
    git(other, "push", "-q", "origin", "feature");
    expect(await remote.fetchBranch(repo, "nope")).toBeNull();
    expect(await remote.fetchBranch(repo, "feature")).toBe(first);
    expect(await remote.syncLocalBranch(repo, "feature", first)).toBe("created");
    expect(git(repo, "rev-parse", "feature")).toBe(first);

    const second = commit(other, "f.txt", "2\n");
    git(other, "push", "-q", "origin", "feature");
    expect(await remote.fetchBranch(repo, "feature")).toBe(second);
    expect(await remote.syncLocalBranch(repo, "feature", second)).toBe("fast-forwarded");
    expect(git(repo, "rev-parse", "feature")).toBe(second);

    git(repo, "checkout", "-q", "feature");
    const local = commit(repo, "g.txt", "local\n");
    const third = commit(other, "f.txt", "3\n");
    git(other, "push", "-q", "origin", "feature");
    await remote.fetchBranch(repo, "feature");
    expect(await remote.syncLocalBranch(repo, "feature", third)).toBe("diverged");
    expect(git(repo, "rev-parse", "feature")).toBe(local);
  });
});
