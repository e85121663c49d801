import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitRunner, runGitSync } from "./exec.js";

/** A "git" that never answers, as a hung credential helper or a stuck lock would leave it. */
function hangingGit(dir: string): string {
  const path = join(dir, "git");
  writeFileSync(path, "#!/bin/sh\nexec sleep 30\n");
  chmodSync(path, 0o755);
  return path;
}

describe("the git runner bounds every call", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "fixpoint-git-exec-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("kills a git that outlives its timeout and says which command and how long", async () => {
    const git = createGitRunner({ gitPath: hangingGit(dir), timeoutMs: 200 });
    const started = Date.now();
    await expect(git.run(dir, ["status"])).rejects.toMatchObject({
      code: "git",
      message: "git status timed out after 200 ms",
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a call's own timeout wins over the runner's", async () => {
    const git = createGitRunner({ gitPath: hangingGit(dir), timeoutMs: 60_000 });
    await expect(git.run(dir, ["fetch"], { timeoutMs: 150 })).rejects.toThrow(
      "git fetch timed out after 150 ms",
    );
  });

  it("the runner's signal and the call's both cancel a running git, and an aborted one starts none", async () => {
    const shutdown = new AbortController();
    const git = createGitRunner({ gitPath: hangingGit(dir), signal: shutdown.signal });
    const running = git.run(dir, ["log"]);
    setTimeout(() => shutdown.abort(), 100);
    await expect(running).rejects.toThrow("git log cancelled");
    await expect(git.run(dir, ["diff"])).rejects.toThrow("git diff cancelled");

    const call = new AbortController();
    const other = createGitRunner({ gitPath: hangingGit(dir) });
    const pending = other.run(dir, ["worktree", "add"], { signal: call.signal });
    setTimeout(() => call.abort(), 100);
    await expect(pending).rejects.toThrow("git worktree cancelled");
  });

  it("runGitSync returns stdout and reports git's own complaint", () => {
    expect(runGitSync(dir, ["--version"])).toMatch(/^git version /);
    expect(() => runGitSync(dir, ["rev-parse", "HEAD"], { env: { GIT_CEILING_DIRECTORIES: dir } })).toThrow(
      /^git rev-parse failed: fatal: not a git repository/,
    );
  });
});
