/**
 * The store at the sizes SPEC §14 budgets for: 10,000 tasks listed by `status`, and the
 * per-stage commit. Timings are logged for docs/benchmarks.md, not asserted (a shared CI machine
 * is no stopwatch); what is asserted is that everything comes back right at that size.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/domain/types.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { finding, newTask, stage } from "./samples.js";

let dir = "";
afterEach(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

/** Wall and CPU time since `from`: on a busy shared machine the CPU figure is the honest one. */
function since(from: { wall: number; cpu: NodeJS.CpuUsage }): string {
  const cpu = process.cpuUsage(from.cpu);
  return `${(performance.now() - from.wall).toFixed(1)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms CPU`;
}
const start = () => ({ wall: performance.now(), cpu: process.cpuUsage() });

describe("SQLite store at scale", () => {
  it("creates and lists 10,000 tasks in order", async () => {
    dir = mkdtempSync(join(tmpdir(), "fixpoint-scale-"));
    const store = await openSqliteStore(join(dir, "fixpoint.db"));
    let t0 = start();
    for (let i = 0; i < 10_000; i++) {
      await store.createTask(
        newTask({ title: `task ${i}`, meta: i % 10 === 0 ? { prNumber: i } : undefined }),
        i,
      );
    }
    const created = since(t0);
    t0 = start();
    const all = await store.listTasks();
    const listed = since(t0);
    console.log(`10,000 createTask: ${created}; listTasks of 10,000: ${listed}`);
    expect(all).toHaveLength(10_000);
    expect(all[9_999]).toMatchObject({ id: "t-10000", title: "task 9999" });
    expect(all[10]?.meta).toEqual({ prNumber: 10 });
    expect(await store.countTasks({ statuses: ["queued"] })).toBe(10_000);
    await store.close();
  });

  it("commits 1,000 stages, each with a checkpoint, findings, events and a task patch", async () => {
    dir = mkdtempSync(join(tmpdir(), "fixpoint-scale-"));
    const store = await openSqliteStore(join(dir, "fixpoint.db"));
    const task = await store.createTask(newTask(), 0);
    const run = await store.createRun(task.id, "start", {}, 0);
    // A checkpoint about the size the engine writes: context values and a findings summary.
    const context: JsonObject = {};
    for (let k = 0; k < 40; k++) context[`key${k}`] = `value of context entry number ${k}`;
    const t0 = start();
    for (let i = 1; i <= 1_000; i++) {
      await store.commitStage({
        taskId: task.id,
        runId: run.id,
        stage: stage(task.id, run.id, { visit: i }),
        checkpoint: { state: { next: "fix", visit: i, context } },
        findings: [finding(task.id, `F-${i % 20}`, { lastCycle: i })],
        events: [
          { taskId: task.id, runId: run.id, type: "stage.start", data: { visit: i } },
          { taskId: task.id, runId: run.id, type: "stage.end", data: { visit: i } },
        ],
        task: { currentStage: "fix", cycle: i },
        now: i,
      });
    }
    console.log(`1,000 commitStage: ${since(t0)}`);
    expect(await store.listStageExecutions(task.id)).toHaveLength(1_000);
    expect((await store.getCheckpoint(run.id))?.seq).toBe(1_000);
    expect(await store.listFindings(task.id)).toHaveLength(20);
    expect(await store.listEvents(task.id)).toHaveLength(2_000);
    expect((await store.getTask(task.id))?.cycle).toBe(1_000);
    await store.close();
  });
});
