/**
 * Two "machines": two clones of one bare repository, one PostgreSQL server, one `fixpoint work`
 * process per clone (the real binary, scripted agents that commit). Ten tasks of three committing
 * stages. Worker A is SIGKILLed in the middle of a stage; worker B, in the other clone, takes that
 * task over once A's lease ends and finishes it from its last checkpoint by fetching the branch
 * A pushed. Every task ends APPROVED once, no completed stage runs again, and every remote task
 * branch holds each stage's commit exactly once (no two commits with the same patch-id).
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exited, git, runCli, startCli, waitFor } from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";
import { databaseForTest } from "../helpers/pg-database.js";
import { branchCommits, type Invocation, taskBranches, twoMachines } from "./project.js";

const TASKS = 10;
const STAGES = ["one", "two", "three"];

describe("two clones, one PostgreSQL store, a worker killed mid-stage", () => {
  it("the other clone's worker finishes every task once, from the last checkpoint, each commit once on the remote", async () => {
    const db = await databaseForTest();
    const { bare, a, b, counts, env } = twoMachines(db.url);
    for (let i = 1; i <= TASKS; i++) {
      expect(runCli(["add", `task number ${i}`], { cwd: i % 2 ? a : b, env }).code).toBe(0);
    }

    const args = ["work", "--watch", "--lease-ms", "3000"];
    // Only A's agent holds in stage two (of the first task it gets there with).
    const workerA = startCli(args, { cwd: a, env: { ...env, FIXPOINT_TEST_HOLD_STAGE: "two" } });
    const workerB = startCli(args, { cwd: b, env });
    try {
      await waitFor(() => existsSync(`${counts}.holding`), 30_000, "worker A to be in stage two");
      const victim = readFileSync(`${counts}.holding`, "utf8");
      workerA.kill("SIGKILL");
      await exited(workerA);

      await waitFor(
        () => {
          const tasks = JSON.parse(runCli(["status", "--json"], { cwd: b, env }).stdout) as {
            status: string;
          }[];
          return tasks.length === TASKS && tasks.every((t) => t.status === "completed");
        },
        90_000,
        "worker B to finish every task",
      );
      const tasks = JSON.parse(runCli(["status", "--json"], { cwd: b, env }).stdout) as {
        id: string;
        final_verdict: string;
      }[];
      expect(tasks.map((t) => t.final_verdict)).toEqual(Array(TASKS).fill("APPROVED"));

      const runs = readJsonLines<Invocation>(counts);
      const pidA = workerA.pid;
      for (const t of tasks) {
        const mine = runs.filter((r) => r.task === t.id).map((r) => r.stage);
        // A completed stage never runs again; only the stage A was killed in runs twice.
        expect(mine).toEqual(t.id === victim ? ["one", "two", "two", "three"] : STAGES);
        const log = runCli(["logs", t.id, "--json"], { cwd: b, env }).stdout;
        expect(log.match(/"type":\s*"task\.finished"/g) ?? []).toHaveLength(1);
      }
      // The victim's stage one was A's; B resumed it at stage two (A's agent process had been
      // killed with A, so the second `two` is B's).
      const victimRuns = runs.filter((r) => r.task === victim);
      expect(victimRuns.map((r) => r.stage)).toEqual(["one", "two", "two", "three"]);
      expect(new Set(victimRuns.slice(2).map((r) => r.pid)).has(pidA ?? -1)).toBe(false);

      const branches = taskBranches(bare);
      expect(branches).toHaveLength(TASKS);
      for (const branch of branches) {
        const id = /^fixpoint\/(t-\d+)/.exec(branch)?.[1] as string;
        const commits = branchCommits(bare, branch);
        expect(commits).toHaveLength(STAGES.length);
        expect(new Set(commits.map((c) => c.patchId)).size).toBe(STAGES.length);
        for (const stage of STAGES) {
          expect(git(bare, "show", `${branch}:${id}-${stage}.txt`)).toBe(`${id} ${stage}\n`);
        }
      }
    } finally {
      workerA.kill("SIGKILL");
      workerB.kill("SIGTERM");
      await Promise.all([exited(workerA), exited(workerB)]);
    }
  }, 150_000);
});
