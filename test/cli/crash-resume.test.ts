import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import {
  exited,
  FIXTURE_AGENTS,
  git,
  isolatedEnv,
  runCli,
  startCli,
  tempDir,
  waitFor,
} from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";

interface Invocation {
  role: string;
  task: string;
  stage: string;
  cycle: number;
  pid: number;
}

describe("a worker killed with SIGKILL in the middle of a stage", () => {
  let root: string;
  let repo: string;
  let counts: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    root = tempDir();
    repo = join(root, "repo");
    counts = join(root, "counts.jsonl");
    env = isolatedEnv(root, { FIXPOINT_TEST_COUNTS: counts, FIXPOINT_TEST_SLOW_FIX: "1" });
    createDemoRepo(repo);
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig(FIXTURE_AGENTS));
    expect(runCli(["add", "Add mean() and median() to src/stats.js"], { cwd: repo, env }).code).toBe(0);
  });

  afterAll(() => {
    // worktrees live under root; nothing to clean outside it
  });

  it("resumes from its checkpoint: completed stages do not run again, no commit is lost, no duplicate findings", async () => {
    const first = startCli(["work"], { cwd: repo, env });
    await waitFor(() => existsSync(`${counts}.fixer-waiting`), 45_000, "the fixer to start");
    const before = readJsonLines<Invocation>(counts);
    first.kill("SIGKILL");
    await exited(first);

    // Before the kill: implement, gates and the three cycle-0 reviews had finished.
    expect(before.filter((i) => i.role === "implementer")).toHaveLength(1);
    expect(before.filter((i) => i.role === "reviewer")).toHaveLength(3);
    const branch = git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/fixpoint/").trim();
    const implCommit = git(repo, "log", "--format=%H %s", branch)
      .split("\n")
      .find((l) => l.includes("implementation"));
    expect(implCommit).toBeTruthy();

    const second = runCli(["work"], { cwd: repo, env, timeoutMs: 90_000 });
    expect(second.stderr).toBe("");
    expect(second.stdout).toContain("Resuming t-1");
    expect(second.stdout).toContain("APPROVED after 1 fix cycle");
    expect(second.code).toBe(0);

    const after = readJsonLines<Invocation>(counts);
    // Completed stages were not run again; only the interrupted fix ran a second time.
    expect(after.filter((i) => i.role === "implementer")).toHaveLength(1);
    expect(after.filter((i) => i.role === "reviewer" && i.cycle === 0)).toHaveLength(3);
    expect(after.filter((i) => i.role === "reviewer" && i.cycle === 1)).toHaveLength(3);
    expect(after.filter((i) => i.role === "fixer")).toHaveLength(2);

    // No commit lost: the implementation commit is still on the branch, the interrupted fixer's
    // half-done work was committed, and the fix commit follows.
    const log = git(repo, "log", "--format=%H %s", branch);
    expect(log).toContain(implCommit as string);
    expect(log).toMatch(/WIP: .*interrupted run/);
    expect(log).toContain("Address review feedback (cycle 1)");
    expect(git(repo, "show", `${branch}:NOTES.md`)).toContain("half-done work");

    const findings = JSON.parse(runCli(["findings", "t-1", "--json"], { cwd: repo, env }).stdout) as {
      id: string;
      status: string;
    }[];
    expect(findings.map((f) => f.id)).toEqual(["F-1", "F-2"]);
    expect(findings.every((f) => f.status === "resolved")).toBe(true);
  }, 150_000);
});

describe("a second SIGINT during a stage", () => {
  it("stops the stage, commits its work, leaves the task resumable; resume completes it", async () => {
    const root = tempDir();
    const repo = join(root, "repo");
    const counts = join(root, "counts.jsonl");
    const env = isolatedEnv(root, { FIXPOINT_TEST_COUNTS: counts, FIXPOINT_TEST_SLOW_FIX: "1" });
    createDemoRepo(repo);
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig(FIXTURE_AGENTS));
    expect(runCli(["add", "Add mean() and median()"], { cwd: repo, env }).code).toBe(0);

    const worker = startCli(["work"], { cwd: repo, env });
    await waitFor(() => existsSync(`${counts}.fixer-waiting`), 45_000, "the fixer to start");
    // The first SIGINT drains (the stage would finish); the second stops it at once.
    worker.kill("SIGINT");
    await waitFor(() => worker.output().includes("SIGINT: draining"), 10_000, "the drain notice");
    worker.kill("SIGINT");
    const code = await exited(worker);
    expect(code).toBe(130);
    expect(worker.output()).toContain("SIGINT: stopping the running stage");

    const task = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: repo, env }).stdout) as {
      task: { status: string; final_verdict: string; reason: string; branch: string };
      runs: { status: string }[];
    };
    expect(task.task.status).toBe("needs_human");
    expect(task.task.final_verdict).toBe("CHANGES_REQUESTED");
    expect(task.task.reason).toMatch(/interrupted \(SIGINT\) during stage fix/);
    expect(task.runs.at(-1)?.status).toBe("interrupted");
    // The fixer's half-done work was committed, not lost.
    expect(git(repo, "show", `${task.task.branch}:NOTES.md`)).toContain("half-done work");

    const resumed = runCli(["resume", "t-1"], { cwd: repo, env, timeoutMs: 90_000 });
    expect(resumed.stdout).toContain("APPROVED after 1 fix cycle");
    expect(resumed.code).toBe(0);
    const fixers = readJsonLines<Invocation>(counts).filter((i) => i.role === "fixer");
    expect(fixers).toHaveLength(2);
    expect(readJsonLines<Invocation>(counts).filter((i) => i.role === "implementer")).toHaveLength(1);
  }, 150_000);
});
