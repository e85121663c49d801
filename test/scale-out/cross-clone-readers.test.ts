/**
 * `show`, `diff` and `checkout` of a task work from any clone. Clone A runs the task's first stage
 * and dies; clone B takes it over and finishes it; clone C never ran it. The task's stored `repo`
 * is A's path (where it was queued), its worktree B's (where it last ran). Each clone reads the
 * task's branch in its own repository, through the push remote where its own copy is missing or
 * behind — never in another clone's folder.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { worktreePath } from "../../src/domain/naming.js";
import { exited, git, isolatedEnv, runCli, startCli, tempDir } from "../helpers/cli.js";
import { bareWithClones, writeProjectFiles } from "./project.js";

describe("a task taken over by another clone", () => {
  it("is shown, diffed and checked out from the clone that ran it, the one that lost it, and one that never had it", async () => {
    const root = tempDir();
    const { clones } = bareWithClones(root, ["a", "b", "c"]);
    const [a, b, c] = clones as [string, string, string];
    const env = isolatedEnv(root, { FIXPOINT_DATABASE_URL: `sqlite:${join(root, "shared.db")}` });
    for (const clone of clones) {
      expect(runCli(["init"], { cwd: clone, env }).code).toBe(0);
      writeProjectFiles(clone, { pushRemote: "origin" });
    }
    expect(runCli(["add", "three steps"], { cwd: a, env }).code).toBe(0);
    const first = startCli(["work"], { cwd: a, env: { ...env, FIXPOINT_CRASH_AT: "checkpoint-written:1" } });
    await exited(first);
    expect(first.signalCode).toBe("SIGKILL");
    expect(runCli(["work"], { cwd: b, env, timeoutMs: 60_000 }).code).toBe(0);

    const shown = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: c, env }).stdout);
    expect(shown.task.status).toBe("completed");
    const branch = shown.task.branch as string;
    const worktree = shown.task.worktree as string;
    // The worktree recorded is the one the task last ran in: B's.
    const worktrees = join(root, "fixpoint-home", "worktrees");
    expect(worktree).toBe(worktreePath(worktrees, b, "t-1"));
    expect(worktree).not.toBe(worktreePath(worktrees, a, "t-1"));
    expect(existsSync(join(worktree, "t-1-three.txt"))).toBe(true);
    expect(runCli(["show", "t-1"], { cwd: b, env }).stdout).toContain(`worktree ${worktree}\n`);
    expect(runCli(["show", "t-1"], { cwd: a, env }).stdout).toContain(
      `worktree ${worktree}  (another clone's;`,
    );
    // A's own branch stopped at stage one.
    expect(git(a, "log", "--format=%s", `main..${branch}`).trim().split("\n")).toHaveLength(1);

    // Every clone's diff is the task's whole work, whatever its own copy of the branch holds.
    for (const clone of [a, b, c]) {
      const diff = runCli(["diff", "t-1"], { cwd: clone, env });
      expect(diff.code).toBe(0);
      for (const stage of ["one", "two", "three"]) expect(diff.stdout).toContain(`+t-1 ${stage}`);
    }

    // C never ran the task: no worktree here; a checkout brings the branch from the remote.
    const noWorktree = runCli(["checkout", "t-1", "--worktree"], { cwd: c, env });
    expect(noWorktree.code).toBe(1);
    expect(noWorktree.stdout + noWorktree.stderr).toContain("has no worktree in this clone");
    const out = runCli(["checkout", "t-1"], { cwd: c, env });
    expect(out.code).toBe(0);
    expect(git(c, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(branch);
    for (const stage of ["one", "two", "three"])
      expect(readFileSync(join(c, `t-1-${stage}.txt`), "utf8")).toBe(`t-1 ${stage}\n`);
    // Nothing happened in A's folder.
    expect(git(a, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("main");
    // B ran it: its worktree is named.
    const inB = runCli(["checkout", "t-1", "--worktree"], { cwd: b, env });
    expect(inB.code).toBe(0);
    expect(inB.stdout.trim()).toBe(worktree);
  }, 120_000);
});
