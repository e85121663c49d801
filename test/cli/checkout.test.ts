/** `fixpoint checkout <task>`: the task's branch in the main checkout, or its worktree's path. */
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { git, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const cli = (...args: string[]) => runCli(args, { cwd: repo, env });
let branch: string;

beforeAll(() => {
  root = tempDir("fixpoint-checkout-");
  repo = join(root, "repo");
  env = isolatedEnv(root);
  createDemoRepo(repo);
  expect(cli("init").code).toBe(0);
  writeFileSync(join(repo, "fixpoint.kdl"), demoConfig());
  git(repo, "add", "fixpoint.kdl");
  git(repo, "commit", "-qm", "fixpoint config");
  expect(cli("add", "Add mean() and median() to src/stats.js, with tests").code).toBe(0);
  expect(cli("work").code).toBe(0);
  branch = (JSON.parse(cli("status", "--json").stdout) as { branch: string }[])[0]?.branch ?? "";
  expect(branch).not.toBe("");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("fixpoint checkout", () => {
  it("--worktree prints the task's worktree, which holds the branch", () => {
    const r = cli("checkout", "1", "--worktree");
    expect(r.code).toBe(0);
    const path = r.stdout.trim();
    expect(git(path, "branch", "--show-current").trim()).toBe(branch);
  });

  it("refuses while the task's worktree holds the branch, saying where it is", () => {
    const r = cli("checkout", "t-1");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${branch} is checked out in t-1's worktree`);
    expect(git(repo, "branch", "--show-current").trim()).toBe("main");
  });

  it("refuses with uncommitted changes, then checks the branch out once they are gone", () => {
    expect(cli("clean").code).toBe(0);
    appendFileSync(join(repo, "src", "stats.js"), "\n// local edit\n");
    const dirty = cli("checkout", "t-1");
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain("has uncommitted changes; commit or stash them first:\n   M src/stats.js");
    expect(git(repo, "branch", "--show-current").trim()).toBe("main");
    git(repo, "checkout", "--", "src/stats.js");
    const ok = cli("checkout", "t-1");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe(`Switched to ${branch} (t-1); \`git switch main\` goes back\n`);
    expect(git(repo, "branch", "--show-current").trim()).toBe(branch);
    expect(cli("checkout", "1").stdout).toBe(`${branch} is already checked out (t-1)\n`);
    expect(cli("checkout", "1", "--worktree").code).toBe(1);
    git(repo, "switch", "-q", "main");
  });

  it("an unknown task or one that has not started exits 2", () => {
    expect(cli("checkout", "t-9").code).toBe(2);
    expect(cli("add", "not started").code).toBe(0);
    const r = cli("checkout", "t-2");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("t-2 has no branch yet");
  });
});
