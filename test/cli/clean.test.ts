import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, projectWithImplementer } from "../helpers/cli.js";

describe("fixpoint clean", () => {
  it("removes finished worktrees, keeps a branch whose commits exist nowhere else, deletes it once merged", () => {
    const { repo, cli } = projectWithImplementer(
      "export default async (req) => { (await import('node:fs')).writeFileSync(req.cwd + '/done.txt', req.taskId); return { text: 'ok' }; };\n",
    );
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

  it("removes every clean worktree, then deletes the branches of those tasks in task order; a dirty worktree keeps its branch", () => {
    const { repo, cli } = projectWithImplementer(
      "export default async (req) => { (await import('node:fs')).writeFileSync(req.cwd + '/' + req.taskId + '.txt', req.taskId); return { text: 'ok' }; };\n",
    );
    for (const title of ["one", "two", "three"]) expect(cli("add", title, "--no-review").code).toBe(0);
    expect(cli("work").code).toBe(0);
    const tasks = ["t-1", "t-2", "t-3"].map(
      (id) =>
        (JSON.parse(cli("show", id, "--json").stdout) as { task: { worktree: string; branch: string } }).task,
    );
    const identity = ["-c", "user.name=t", "-c", "user.email=t@localhost"];
    for (const t of tasks) git(repo, ...identity, "merge", "-q", "--no-edit", t.branch);
    const [one, two, three] = tasks as [(typeof tasks)[0], (typeof tasks)[0], (typeof tasks)[0]];
    writeFileSync(join(three.worktree, "scratch.txt"), "not committed\n");

    const r = cli("clean", "--branches");

    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `  removed ${one.worktree}`,
        `  deleted branch ${one.branch}`,
        `  removed ${two.worktree}`,
        `  deleted branch ${two.branch}`,
        `  kept ${three.worktree}: it has uncommitted changes`,
        "2 worktrees removed",
        "",
      ].join("\n"),
    );
    expect(git(repo, "worktree", "list", "--porcelain")).not.toContain(one.worktree);
    expect(git(repo, "worktree", "prune", "--dry-run", "-v")).toBe("");
    expect(git(repo, "branch", "--list", three.branch)).toContain(three.branch);
    expect(existsSync(join(three.worktree, "scratch.txt"))).toBe(true);
  });
});
