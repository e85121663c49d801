import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { exited, FIXTURE_AGENTS, isolatedEnv, runCli, startCli, tempDir } from "../helpers/cli.js";

describe("two `fixpoint work` processes on one store", () => {
  it("never run the same task: 20 tasks, 2 workers, each task run exactly once", async () => {
    const root = tempDir();
    const repo = join(root, "repo");
    const counts = join(root, "counts.jsonl");
    const env = isolatedEnv(root, { FIXPOINT_TEST_COUNTS: counts });
    createDemoRepo(repo);
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    const script = JSON.stringify(join(FIXTURE_AGENTS, "quick-implementer.mjs"));
    writeFileSync(
      join(repo, "fixpoint.kdl"),
      `agent "implementer" backend="scripted" script=${script} timeout="1m"\nagent "fixer" backend="scripted" script=${script} timeout="1m"\n`,
    );
    for (let i = 1; i <= 20; i++) {
      expect(runCli(["add", `task number ${i}`, "--no-review"], { cwd: repo, env }).code).toBe(0);
    }
    const a = startCli(["work"], { cwd: repo, env });
    const b = startCli(["work"], { cwd: repo, env });
    const [ca, cb] = await Promise.all([exited(a), exited(b)]);
    expect([ca, cb]).toEqual([0, 0]);

    const runs = readFileSync(counts, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { task: string; pid: number });
    const byTask = new Map<string, number>();
    for (const r of runs) byTask.set(r.task, (byTask.get(r.task) ?? 0) + 1);
    expect(byTask.size).toBe(20);
    expect([...byTask.values()].every((n) => n === 1)).toBe(true);
    // Both workers did work (a claim race that serialised everything would still pass above,
    // so this shows the two processes really ran side by side).
    expect(new Set(runs.map((r) => r.pid)).size).toBe(2);

    const status = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as {
      status: string;
      final_verdict: string;
    }[];
    expect(status).toHaveLength(20);
    expect(status.every((t) => t.status === "completed" && t.final_verdict === "APPROVED")).toBe(true);
  }, 120_000);
});
