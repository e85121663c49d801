/**
 * Two clones of one bare repository share one store. A worker in clone A is killed right after
 * it pushed stage two's commit and before the checkpoint naming it was written (crash point
 * `pushed`); a worker in clone B takes the task over: it fetches the branch, puts its worktree at
 * the checkpoint's commit, records that the remote was ahead, runs stage two again, and its push
 * (leased against the remote's sha) replaces the orphan commit. The remote branch ends with each
 * stage's commit exactly once.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exited, git, isolatedEnv, runCli, startCli, tempDir, waitFor } from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";
import {
  bareWithClones,
  branchCommits,
  type Invocation,
  type TwoMachines,
  taskBranches,
  twoMachines,
  writeProjectFiles,
} from "./project.js";

function invocations(file: string): string[] {
  return readJsonLines<Invocation>(file).map((i) => `${i.task}:${i.stage}`);
}

/**
 * Clones `a` and `b` of one bare repository, initialised with the three-step project pushing to
 * `origin`, sharing one SQLite store; one task ("three steps") added in clone A.
 */
function twoClonesOneTask(): TwoMachines {
  const m = twoMachines((root) => `sqlite:${join(root, "shared.db")}`);
  expect(runCli(["add", "three steps"], { cwd: m.a, env: m.env }).code).toBe(0);
  return m;
}

describe("a task branch handed over through the remote", () => {
  it("push made, checkpoint lost: the other clone resets to the checkpoint and pushes over the orphan", async () => {
    const { bare, a, b, counts, env } = twoClonesOneTask();

    const first = startCli(["work"], { cwd: a, env: { ...env, FIXPOINT_CRASH_AT: "pushed:2" } });
    await exited(first);
    expect(first.signalCode).toBe("SIGKILL");
    const branches = taskBranches(bare);
    expect(branches).toHaveLength(1);
    const branch = branches[0] as string;
    const orphan = branchCommits(bare, branch);
    expect(orphan.map((c) => c.subject)).toHaveLength(2);

    const second = runCli(["work"], { cwd: b, env, timeoutMs: 60_000 });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("ahead of the last checkpoint");
    const status = JSON.parse(runCli(["status", "--json"], { cwd: b, env }).stdout) as {
      status: string;
      final_verdict: string;
    }[];
    expect(status.map((t) => [t.status, t.final_verdict])).toEqual([["completed", "APPROVED"]]);

    // Stage one ran once; stage two's checkpoint was lost, so it ran again (in clone B).
    expect(invocations(counts)).toEqual(["t-1:one", "t-1:two", "t-1:two", "t-1:three"]);
    const commits = branchCommits(bare, branch);
    expect(commits).toHaveLength(3);
    expect(new Set(commits.map((c) => c.patchId)).size).toBe(3);
    // Stage one's commit is the one clone A pushed. Stage two's redo replaced the orphan: it may
    // even have the orphan's sha (same parent, tree, message and second), but it is there once,
    // on top of stage one, with stage three after it (the patch ids above are all distinct).
    expect(commits[0]?.sha).toBe(orphan[0]?.sha);
    expect(commits[1]?.subject).toBe(orphan[1]?.subject);
    for (const stage of ["one", "two", "three"]) {
      expect(git(bare, "show", `${branch}:t-1-${stage}.txt`)).toBe(`t-1 ${stage}\n`);
    }
    const logs = runCli(["logs", "t-1"], { cwd: b, env }).stdout;
    expect(logs).toContain("branch.reset");
  }, 120_000);

  it("killed after the agent of the first stage answered: the other clone runs that agent again", async () => {
    const { bare, a, b, counts, env } = twoClonesOneTask();
    const first = startCli(["work"], { cwd: a, env: { ...env, FIXPOINT_CRASH_AT: "agent-exited:1" } });
    await exited(first);
    expect(first.signalCode).toBe("SIGKILL");
    expect(taskBranches(bare)).toEqual([]);

    expect(runCli(["work"], { cwd: b, env, timeoutMs: 60_000 }).code).toBe(0);
    // The saved reply of stage one stood for work left in clone A: clone B ran the agent again.
    expect(invocations(counts)).toEqual(["t-1:one", "t-1:one", "t-1:two", "t-1:three"]);
    const [branch] = taskBranches(bare);
    const commits = branchCommits(bare, branch as string);
    expect(commits).toHaveLength(3);
    expect(new Set(commits.map((c) => c.patchId)).size).toBe(3);
    expect(git(bare, "show", `${branch}:t-1-one.txt`)).toBe("t-1 one\n");
  }, 120_000);

  it("a reply saved in the other clone does not commit this clone's half-done work as the stage's", async () => {
    const { bare, a, b, counts, env } = twoClonesOneTask();
    // Clone A's worker dies in the middle of stage one, its work half done and not committed.
    const first = startCli(["work"], { cwd: a, env: { ...env, FIXPOINT_TEST_HOLD_STAGE: "one" } });
    await waitFor(() => existsSync(`${counts}.holding`), 30_000, "stage one to hold");
    first.kill("SIGKILL");
    await exited(first);
    // Clone B's worker runs stage one's agent to its answer, saved, and dies before committing.
    const second = startCli(["work"], { cwd: b, env: { ...env, FIXPOINT_CRASH_AT: "agent-exited:1" } });
    await exited(second);
    expect(second.signalCode).toBe("SIGKILL");

    // Back in clone A: the reply is clone B's, its work on B's disk. Stage one runs again here.
    expect(runCli(["work"], { cwd: a, env, timeoutMs: 60_000 }).code).toBe(0);
    const [branch] = taskBranches(bare);
    for (const stage of ["one", "two", "three"]) {
      expect(git(bare, "show", `${branch}:t-1-${stage}.txt`)).toBe(`t-1 ${stage}\n`);
    }
    expect(invocations(counts)).toEqual(["t-1:one", "t-1:one", "t-1:one", "t-1:two", "t-1:three"]);
  }, 120_000);

  it("a remote that declines the push: one line naming remote and branch; retry finishes, nothing lost", () => {
    const root = tempDir();
    const { bare, clones } = bareWithClones(root, ["a"]);
    const a = clones[0] as string;
    const env = isolatedEnv(root, { FIXPOINT_TEST_COUNTS: join(root, "counts.jsonl") });
    expect(runCli(["init"], { cwd: a, env }).code).toBe(0);
    writeProjectFiles(a, { pushRemote: "origin" });
    expect(runCli(["add", "three steps"], { cwd: a, env }).code).toBe(0);
    const hook = join(bare, "hooks", "pre-receive");
    writeFileSync(hook, "#!/bin/sh\nexit 1\n", { mode: 0o755 });

    const refused = runCli(["work"], { cwd: a, env, timeoutMs: 60_000 });
    expect(`${refused.stdout}${refused.stderr}`).toContain('to remote "origin" was refused');
    const shown = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: a, env }).stdout) as {
      task: { status: string; reason: string; branch: string };
    };
    expect(shown.task.status).toBe("needs_human");
    expect(shown.task.reason).toMatch(
      /^push of fixpoint\/t-1\S* to remote "origin" was refused: .*pre-receive hook declined.*; `fixpoint retry t-1`/,
    );
    expect(shown.task.reason).not.toContain("\n");
    expect(taskBranches(bare)).toEqual([]);
    // Stage one's commit is kept in the local branch.
    expect(git(a, "show", `${shown.task.branch}:t-1-one.txt`)).toBe("t-1 one\n");

    rmSync(hook);
    expect(runCli(["retry", "t-1"], { cwd: a, env }).code).toBe(0);
    const done = runCli(["work"], { cwd: a, env, timeoutMs: 60_000 });
    expect(done.code).toBe(0);
    const status = JSON.parse(runCli(["status", "--json"], { cwd: a, env }).stdout) as {
      final_verdict: string;
    }[];
    expect(status[0]?.final_verdict).toBe("APPROVED");
    const commits = branchCommits(bare, shown.task.branch);
    expect(commits).toHaveLength(3);
    expect(new Set(commits.map((c) => c.patchId)).size).toBe(3);
  }, 120_000);
});
