import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { git, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

describe("fixpoint clean", () => {
  it("removes finished worktrees, keeps a branch whose commits exist nowhere else, deletes it once merged", () => {
    const root = tempDir();
    const repo = join(root, "repo");
    const env = isolatedEnv(root);
    const cli = (...args: string[]) => runCli(args, { cwd: repo, env });
    createDemoRepo(repo);
    expect(cli("init").code).toBe(0);
    writeFileSync(
      join(repo, "impl.mjs"),
      "export default async (req) => { (await import('node:fs')).writeFileSync(req.cwd + '/done.txt', req.taskId); return { text: 'ok' }; };\n",
    );
    writeFileSync(join(repo, "fixpoint.kdl"), 'agent "implementer" backend="scripted" script="./impl.mjs"\n');
    expect(cli("add", "one", "--no-review").code).toBe(0);
    expect(cli("work").stdout).toContain("APPROVED");
    const task = JSON.parse(cli("show", "t-1", "--json").stdout) as {
      task: { worktree: string; branch: string };
    };
    expect(existsSync(task.task.worktree)).toBe(true);

    const kept = cli("clean", "--branches");
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(`removed ${task.task.worktree}`);
    expect(kept.stdout).toContain(`kept branch ${task.task.branch}: it has commits that exist nowhere else`);
    expect(existsSync(task.task.worktree)).toBe(false);
    expect(git(repo, "branch", "--list", task.task.branch)).toContain(task.task.branch);

    git(
      repo,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@localhost",
      "merge",
      "-q",
      "--no-edit",
      task.task.branch,
    );
    const deleted = cli("clean", "--branches");
    expect(deleted.stdout).toContain(`deleted branch ${task.task.branch}`);
    expect(git(repo, "branch", "--list", task.task.branch)).toBe("");
    // Nothing left to do: a third run says nothing about the branch it already deleted.
    expect(cli("clean", "--branches").stdout).toBe("0 worktrees removed\n");
  });
});
