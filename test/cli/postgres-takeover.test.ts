/**
 * Two workers on one PostgreSQL store; one is SIGKILLed in the middle of a stage. The other,
 * already running and idle, takes the task over when the dead worker's lease ends (measured on
 * the database's clock; found by its slow poll, since an expired lease sends no NOTIFY) and
 * finishes it from the last checkpoint: completed stages do not run again.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { exited, FIXTURE_AGENTS, isolatedEnv, runCli, startCli, tempDir, waitFor } from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";
import { databaseForTest } from "../helpers/pg-database.js";

interface Invocation {
  role: string;
  task: string;
  cycle: number;
  pid: number;
}

describe("a worker killed mid-stage on a PostgreSQL store", () => {
  it("is replaced by a running worker once its lease ends; no completed stage runs again", async () => {
    const db = await databaseForTest();
    const root = tempDir();
    const repo = join(root, "repo");
    const counts = join(root, "counts.jsonl");
    const env = isolatedEnv(root, {
      FIXPOINT_TEST_COUNTS: counts,
      FIXPOINT_TEST_SLOW_FIX: "1",
      FIXPOINT_DATABASE_URL: db.url,
    });
    createDemoRepo(repo);
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig(FIXTURE_AGENTS));
    expect(runCli(["add", "Add mean() and median() to src/stats.js"], { cwd: repo, env }).code).toBe(0);

    const first = startCli(["work"], { cwd: repo, env });
    await waitFor(() => existsSync(`${counts}.fixer-waiting`), 60_000, "the fixer to start");
    // The survivor starts while the first worker holds the task, so it finds nothing to claim.
    const survivor = startCli(["work", "--watch"], { cwd: repo, env });
    try {
      await waitFor(
        () =>
          (JSON.parse(runCli(["workers", "--json"], { cwd: repo, env }).stdout || "[]") as unknown[])
            .length === 2,
        30_000,
        "both workers to register",
      );
      const before = readJsonLines<Invocation>(counts);
      first.kill("SIGKILL");
      await exited(first);
      expect(before.filter((i) => i.role === "implementer")).toHaveLength(1);
      expect(before.filter((i) => i.role === "reviewer")).toHaveLength(3);

      await waitFor(
        () => {
          const tasks = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as {
            status: string;
          }[];
          return tasks[0]?.status === "completed";
        },
        120_000,
        "the survivor to finish the task",
      );
      const tasks = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as {
        final_verdict: string;
      }[];
      expect(tasks[0]?.final_verdict).toBe("APPROVED");
      const after = readJsonLines<Invocation>(counts);
      expect(after.filter((i) => i.role === "implementer")).toHaveLength(1);
      expect(after.filter((i) => i.role === "reviewer" && i.cycle === 0)).toHaveLength(3);
      const fixers = after.filter((i) => i.role === "fixer");
      expect(fixers).toHaveLength(2);
      // The survivor did it, resuming the run the first worker had started.
      expect(survivor.output()).toContain("Resuming t-1");
    } finally {
      survivor.kill("SIGTERM");
      await exited(survivor);
    }
  }, 240_000);
});
