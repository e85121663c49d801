/**
 * `store copy`: a SQLite project's whole history lands in an empty PostgreSQL database, reads back
 * the same through the PostgreSQL store, and a second copy into the same database is refused
 * without writing anything.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { copyStore } from "../../src/app/store-copy.js";
import type { Store } from "../../src/domain/store.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { type TestDatabase, testDatabase } from "../helpers/pg-server.js";
import { finding, newTask, stage } from "./samples.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fresh(): Promise<{ dir: string; db: TestDatabase }> {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-copy-"));
  const db = await testDatabase();
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }), db.drop);
  return { dir, db };
}

/** Everything a user can read about the store, in one comparable value. */
async function snapshot(store: Store) {
  const tasks = await store.listTasks();
  const perTask = [];
  for (const t of tasks) {
    const runs = await store.listRuns(t.id);
    perTask.push({
      task: t,
      runs,
      checkpoints: await Promise.all(runs.map((r) => store.getCheckpoint(r.id))),
      stages: await store.listStageExecutions(t.id),
      findings: await store.listFindings(t.id),
      events: await store.listEvents(t.id),
      artifacts: await store.listArtifacts(t.id),
    });
  }
  return {
    perTask,
    summaries: await store.listTaskSummaries(),
    // The text, count and paging; `tokenFree` is what each store can vouch for (SQLite only).
    statusJson: (({ json, count, lastSeq }) => ({
      json: Buffer.from(json).toString("utf8"),
      count,
      lastSeq,
    }))(await store.listTaskJson({ limit: 100 })),
    markers: [await store.getMarker("pr:1:reply"), await store.getMarker("watch")],
  };
}

describe("store copy", () => {
  it("copies a SQLite project's history into PostgreSQL so every read is the same", async () => {
    const { dir, db } = await fresh();
    const path = join(dir, ".fixpoint", "fixpoint.db");
    const sqlite = await openSqliteStore(path);
    const a = await sqlite.createTask(
      newTask({ title: "first", budget: { usd: 3 }, meta: { prNumber: 4 } }),
      10,
    );
    const b = await sqlite.createTask(newTask({ id: "pr-7-cycle-1", parentId: a.id }), 11);
    await sqlite.claimTask({ workerId: "host:1:ab", leaseMs: 1000, now: 12 });
    const run = await sqlite.createRun(a.id, "start", { workerId: "host:1:ab" }, 13);
    await sqlite.commitStage({
      taskId: a.id,
      runId: run.id,
      stage: stage(a.id, run.id, {
        costUsd: 0.5,
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
      }),
      checkpoint: { state: { next: "fix", context: { cycle: 1 } } },
      findings: Array.from({ length: 11 }, (_, i) => finding(a.id, `F-${i + 1}`)),
      events: [{ taskId: a.id, runId: run.id, type: "stage.end", data: { stage: "implement" } }],
      task: { currentStage: "fix", cycle: 1 },
      now: 20,
    });
    await sqlite.commitStage({
      taskId: a.id,
      runId: run.id,
      stage: null,
      checkpoint: { state: { next: "review" } },
      findings: [],
      events: [],
      task: {},
      now: 21,
    });
    await sqlite.updateRun(run.id, { status: "completed", finalVerdict: "APPROVED", endedAt: 30 }, 30);
    await sqlite.appendEvents([{ taskId: b.id, runId: null, type: "note", data: { text: "hi" } }], 31);
    await sqlite.setMarker("pr:1:reply", { commentId: 9 }, 32);
    await sqlite.setMarker("watch", [1, "two", null], 33);
    await sqlite.saveArtifact({ taskId: a.id, kind: "transcript", name: "r1-x.log", text: "héllo\n" }, 34);
    await sqlite.saveArtifact(
      { taskId: a.id, kind: "review", name: "big.md", text: "y".repeat(2_000_000) },
      35,
    );
    const taught = await sqlite.addLearning({
      repo: "/repo",
      text: "validated upstream",
      scope: "src/a.ts",
      source: { kind: "dismissed", taskId: a.id, findingId: "F-1" },
      origin: { file: "src/a.ts", lineStart: 1, lineEnd: 2, title: "no check", severity: "P1" },
      createdAt: 34,
      createdBy: "alice",
    });
    await sqlite.recordLearningHit(taught.id, 35);
    const learningsBefore = await sqlite.listLearnings({ includeRemoved: true });
    const before = await snapshot(sqlite);
    await sqlite.close();
    // A hand-edited row with bad JSON is copied as its tolerant reading.
    const raw = new Database(path);
    raw.prepare("UPDATE tasks SET agents = 'not json' WHERE id = ?").run(b.id);
    raw.close();

    const result = await copyStore("sqlite:.fixpoint/fixpoint.db", db.url, dir);
    expect(result.counts).toMatchObject({
      tasks: 2,
      runs: 1,
      stage_executions: 1,
      events: 2,
      findings: 11,
      checkpoints: 1,
      markers: 2,
      artifacts: 2,
      learnings: 1,
    });

    const pg = await openPostgresStore(db.url, { leaseClock: "caller" });
    cleanups.push(() => pg.close());
    expect(await snapshot(pg)).toEqual(before);
    // New rows continue after the copied ids.
    const next = await pg.createRun(b.id, "start", {}, 40);
    expect(next.id).toBeGreaterThan(run.id);
    expect((await pg.createTask(newTask(), 41)).id).toBe("t-3");
    expect(await pg.listLearnings({ includeRemoved: true })).toEqual(learningsBefore);
    expect((await pg.addLearning({ ...taught, text: "next" })).id).toBe("L-2");
  });

  it("refuses a target that already holds tasks, copying nothing", async () => {
    const { dir, db } = await fresh();
    const sqlite = await openSqliteStore(join(dir, "state.db"));
    await sqlite.createTask(newTask(), 1);
    await sqlite.close();
    await copyStore(join(dir, "state.db"), db.url, dir);
    const second = copyStore("sqlite:state.db", db.url, dir);
    await expect(second).rejects.toMatchObject({ code: "usage" });
    await expect(second).rejects.toThrow(
      /already holds 1 task\(s\) and 0 marker\(s\); store copy only fills an empty database/,
    );
    const pg = await openPostgresStore(db.url);
    cleanups.push(() => pg.close());
    expect(await pg.countTasks()).toBe(1);
  });

  it("rejects a source that is not a SQLite store and a target that is not PostgreSQL", async () => {
    const { dir, db } = await fresh();
    await expect(copyStore(db.url, db.url, dir)).rejects.toThrow(/--from must be a SQLite store/);
    await expect(copyStore("sqlite:missing.db", db.url, dir)).rejects.toThrow(/--from: no SQLite store at/);
    await expect(copyStore("sqlite", "mysql://u:pw@h/db", dir)).rejects.toThrow(
      /--to must be a postgres:\/\/ or postgresql:\/\/ URL, got "mysql:\/\/u:\*\*\*@h\/db"/,
    );
  });
});
