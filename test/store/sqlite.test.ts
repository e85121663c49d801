/**
 * The Store contract on a real SQLite file, plus what only SQLite has: file permissions,
 * schema versions, tolerant reads of hand-edited rows, lock errors, and claims from two OS
 * processes. The child processes run the TypeScript sources through fixtures/ts-loader.mjs, so
 * this file needs no build step.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/store.js";
import { migrate } from "../../src/store/sqlite/migrate.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { CLAIM_ANY } from "../../src/store/sqlite/task-sql.js";
import { runStoreContract } from "./contract.js";
import { finding, newTask } from "./samples.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-store-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

runStoreContract("sqlite file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-contract-"));
  const store = await openSqliteStore(join(dir, ".fixpoint", "fixpoint.db"));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

/** A second, raw connection: how a person (or another version) could have edited the file. */
function raw(path: string): Database.Database {
  return new Database(path);
}

/** A database file left at the migrations before `version`, holding task t-1 as rows of that time. */
function databaseBefore(version: number): { path: string; old: Database.Database } {
  const path = join(tempDir(), "f.db");
  const old = raw(path);
  migrate(
    old,
    path,
    MIGRATIONS.filter((m) => m.version < version),
  );
  old
    .prepare(
      "INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, max_cycles, created_at, updated_at) VALUES ('t-1', 1, 'implement', 'old', 'p', 'default', '/r', 'main', 3, 1, 1)",
    )
    .run();
  return { path, old };
}

describe("SQLite store: the file", () => {
  it("creates .fixpoint owner-only and the database and its WAL files 0600", async () => {
    const root = tempDir();
    const path = join(root, ".fixpoint", "fixpoint.db");
    const store = await openSqliteStore(path);
    await store.createTask(newTask(), 1);
    expect(statSync(join(root, ".fixpoint")).mode & 0o777).toBe(0o700);
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(f).mode & 0o777).toBe(0o600);
    const db = raw(path);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
    await store.close();
  });

  it("migrates once: reopening keeps the data and applies nothing twice", async () => {
    const path = join(tempDir(), "f.db");
    const first = await openSqliteStore(path);
    await first.createTask(newTask({ title: "kept" }), 1);
    await first.close();
    const again = await openSqliteStore(path);
    expect((await again.getTask("1"))?.title).toBe("kept");
    await again.close();
    const db = raw(path);
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    expect(db.prepare("SELECT version FROM schema_migrations").pluck().all()).toEqual(
      MIGRATIONS.map((m) => m.version),
    );
    db.close();
  });

  it("upgrades a database left at an older schema version step by step, keeping its rows", async () => {
    const { path, old } = databaseBefore(2);
    old.close();
    const store = await openSqliteStore(path);
    expect((await store.getTask("1"))?.title).toBe("old");
    expect((await store.claimTask({ workerId: "w", leaseMs: 10, now: 5 }))?.id).toBe("t-1");
    await store.close();
    const db = raw(path);
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks'")
      .pluck();
    const names = indexes.all();
    expect(names).toEqual(expect.arrayContaining(["tasks_queue", "tasks_leases", "tasks_totals"]));
    // Gone in 020: a claim no longer moves an entry of it (tasks_totals serves the status lookups).
    expect(names).not.toContain("tasks_status_seq");
    db.close();
  });

  it("backfills each task's spend from its stage records when it adds the spend columns", async () => {
    const { path, old } = databaseBefore(3);
    old
      .prepare(
        "INSERT INTO runs (id, task_id, kind, status, started_at) VALUES (1, 't-1', 'start', 'completed', 1)",
      )
      .run();
    const insertStage = old.prepare(
      "INSERT INTO stage_executions (run_id, task_id, stage_id, kind, visit, cycle, outcome, started_at, ended_at, input_tokens, output_tokens, cost_usd) VALUES (1, 't-1', 's', 'agent', 1, 0, 'success', 1, 2, ?, ?, ?)",
    );
    insertStage.run(100, 10, 0.5);
    insertStage.run(50, 5, 0.25);
    old.close();
    const store = await openSqliteStore(path);
    expect((await store.listTaskSummaries())[0]).toMatchObject({ id: "t-1", costUsd: 0.75, tokens: 165 });
    await store.close();
  });

  it("keeps each run's latest checkpoint and every marker when checkpoints become one row per run", async () => {
    const { path, old } = databaseBefore(14);
    const run = old.prepare(
      "INSERT INTO runs (id, task_id, kind, status, started_at) VALUES (?, 't-1', 'start', 'completed', 1)",
    );
    run.run(1);
    run.run(2);
    const checkpoint = old.prepare(
      "INSERT INTO checkpoints (run_id, seq, task_id, state, created_at) VALUES (?, ?, 't-1', ?, ?)",
    );
    for (const seq of [1, 2, 3]) checkpoint.run(1, seq, JSON.stringify({ next: `s${seq}` }), seq);
    checkpoint.run(2, 1, JSON.stringify({ next: "only" }), 9);
    const marker = old.prepare("INSERT INTO markers (key, value, created_at) VALUES (?, ?, ?)");
    marker.run("turns:t-1:1:s1", JSON.stringify({ visit: "0.1" }), 5);
    marker.run("counters:t-1:1:p0", JSON.stringify({ gen: 2 }), 6);
    old.close();

    const store = await openSqliteStore(path);
    expect(await store.getCheckpoint(1)).toMatchObject({ seq: 3, state: { next: "s3" }, createdAt: 3 });
    expect(await store.getCheckpoint(2)).toMatchObject({ seq: 1, state: { next: "only" } });
    expect(await store.getMarker("turns:t-1:1:s1")).toEqual({ visit: "0.1" });
    expect(await store.getMarker("counters:t-1:1:p0")).toEqual({ gen: 2 });
    // The next checkpoint of run 1 replaces its row and counts on.
    await store.commitStage({
      taskId: "t-1",
      runId: 1,
      stage: null,
      checkpoint: { state: { next: "s4" } },
      findings: [],
      events: [],
      task: {},
      now: 10,
    });
    expect(await store.getCheckpoint(1)).toMatchObject({ seq: 4, state: { next: "s4" }, createdAt: 10 });
    await store.close();
    const db = raw(path);
    expect(db.prepare("SELECT run_id, seq FROM checkpoints ORDER BY run_id").all()).toEqual([
      { run_id: 1, seq: 4 },
      { run_id: 2, seq: 1 },
    ]);
    db.close();
  });

  it("keeps stage records and events with their ids when they move to plain row ids, and counts on", async () => {
    const { path, old } = databaseBefore(16);
    old
      .prepare(
        "INSERT INTO runs (id, task_id, kind, status, started_at) VALUES (1, 't-1', 'start', 'running', 1)",
      )
      .run();
    const stage = old.prepare(
      "INSERT INTO stage_executions (id, run_id, task_id, stage_id, kind, visit, cycle, outcome, started_at, ended_at, cost_usd) VALUES (?, 1, 't-1', ?, 'agent', 1, 0, 'success', 1, 2, 0.5)",
    );
    stage.run(7, "implement");
    stage.run(9, "review");
    const event = old.prepare(
      "INSERT INTO events (id, task_id, run_id, ts, type, data) VALUES (?, 't-1', 1, 1, ?, '{}')",
    );
    event.run(40, "stage.finished");
    event.run(41, "stage.finished");
    old.close();

    const store = await openSqliteStore(path);
    expect((await store.listStageExecutions("t-1")).map((s) => [s.id, s.stageId])).toEqual([
      [7, "implement"],
      [9, "review"],
    ]);
    expect((await store.listEvents("t-1")).map((e) => e.id)).toEqual([40, 41]);
    const next = await store.commitStage({
      taskId: "t-1",
      runId: 1,
      stage: {
        runId: 1,
        taskId: "t-1",
        stageId: "fix",
        kind: "fix",
        visit: 1,
        cycle: 1,
        outcome: "success",
        failureClass: null,
        failureReason: null,
        verdict: null,
        startedAt: 3,
        endedAt: 4,
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
        costUsd: 0.25,
        headBefore: null,
        headAfter: null,
        sessionId: null,
        summary: null,
        attempts: 1,
      },
      checkpoint: null,
      findings: [],
      events: [{ taskId: "t-1", runId: 1, type: "stage.finished", data: {} }],
      task: {},
      now: 4,
    });
    // Ids go on after the largest; the spend trigger still adds what a stage cost to its task.
    expect(next?.id).toBe(10);
    expect((await store.listEvents("t-1")).map((e) => e.id)).toEqual([40, 41, 42]);
    expect((await store.listTaskSummaries())[0]?.costUsd).toBeCloseTo(1.25);
    await store.close();
    const db = raw(path);
    expect(db.prepare("SELECT name FROM sqlite_sequence").pluck().all()).not.toContain("events");
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").pluck().get()).not.toMatch(
      /AUTOINCREMENT/,
    );
    db.close();
  });

  it("prepares a stage's record ahead without writing anything, and never throws, even closed", async () => {
    const store = await openSqliteStore(join(tempDir(), ".fixpoint", "fixpoint.db"));
    const task = await store.createTask(newTask(), 1);
    expect(store.prepareStageRecords).toBeTypeOf("function");
    store.prepareStageRecords?.();
    expect(await store.listStageExecutions(task.id)).toEqual([]);
    expect(await store.listEvents(task.id)).toEqual([]);
    await store.close();
    expect(() => store.prepareStageRecords?.()).not.toThrow();
  });

  it("refuses a database written by a newer fixpoint, saying what to do", async () => {
    const path = join(tempDir(), "f.db");
    await (await openSqliteStore(path)).close();
    const db = raw(path);
    db.pragma("user_version = 99");
    db.close();
    const opening = openSqliteStore(path);
    await expect(opening).rejects.toMatchObject({ code: "store_version", exitCode: 3 });
    await expect(opening).rejects.toThrow(
      new RegExp(
        `schema version 99, which is newer than this fixpoint \\(${LATEST_SCHEMA_VERSION}\\); upgrade fixpoint`,
      ),
    );
  });

  it("refuses a file that is not a database", async () => {
    const path = join(tempDir(), "f.db");
    writeFileSync(path, "this is not sqlite, just some text that is long enough to have a header".repeat(20));
    await expect(openSqliteStore(path)).rejects.toMatchObject({ code: "store" });
  });

  it("reports a write lock held past the busy timeout as retryable store_locked; reads still work", async () => {
    const path = join(tempDir(), "f.db");
    const store = await openSqliteStore(path, { busyTimeoutMs: 100 });
    await store.createTask(newTask(), 1);
    const other = raw(path);
    other.exec("BEGIN IMMEDIATE");
    const write = store.createTask(newTask(), 2);
    await expect(write).rejects.toMatchObject({ code: "store_locked", retryable: true });
    await expect(write).rejects.toThrow(`the database ${path} is locked by another process (waited 0.1s)`);
    expect(await store.countTasks()).toBe(1);
    other.exec("ROLLBACK");
    other.close();
    expect((await store.createTask(newTask(), 3)).id).toBe("t-2");
    await store.close();
  });
});

describe("SQLite store: tolerant reads of hand-edited rows", () => {
  async function withStore(fn: (store: Store, db: Database.Database) => Promise<void>): Promise<void> {
    const path = join(tempDir(), "f.db");
    const store = await openSqliteStore(path);
    const db = raw(path);
    try {
      await fn(store, db);
    } finally {
      db.close();
      await store.close();
    }
  }

  it("defaults malformed task JSON, drops mistyped keys and keeps unknown ones", async () => {
    await withStore(async (store, db) => {
      await store.createTask(newTask(), 1);
      await store.createTask(newTask(), 1);
      db.prepare("UPDATE tasks SET meta = ?, budget = ?, agents = ? WHERE id = 't-1'").run(
        "{not json",
        "[1, 2]",
        '{"review": 5, "fix": "codex"}',
      );
      db.prepare("UPDATE tasks SET meta = ?, budget = ? WHERE id = 't-2'").run(
        '{"prNumber": "12", "origin": "cli", "findingIds": ["F-1", 3], "future": {"a": 1}}',
        '{"usd": "lots", "tokens": 5000}',
      );
      const [t1, t2] = await store.listTasks();
      expect([t1?.meta, t1?.budget, t1?.agents]).toEqual([{}, {}, { fix: "codex" }]);
      expect(t2?.meta).toEqual({ origin: "cli", findingIds: ["F-1"], future: { a: 1 } });
      expect(t2?.budget).toEqual({ tokens: 5000 });
      // A rewrite through this version keeps the key a newer version stored.
      const meta = { ...t2?.meta, noReview: true };
      const t2b = await store.updateTask("t-2", { meta }, 2);
      expect(JSON.parse(String(db.prepare("SELECT meta FROM tasks WHERE id = 't-2'").pluck().get()))).toEqual(
        t2b.meta,
      );
      expect(t2b.meta).toMatchObject({ future: { a: 1 }, noReview: true });
    });
  });

  it("defaults run meta, finding history and event data that do not parse", async () => {
    await withStore(async (store, db) => {
      const t = await store.createTask(newTask(), 1);
      const run = await store.createRun(t.id, "start", {}, 1);
      await store.saveFindings(
        t.id,
        [finding(t.id, "F-1")],
        [{ taskId: t.id, runId: null, type: "e", data: {} }],
        1,
      );
      db.prepare("UPDATE runs SET meta = ?").run(
        '{"lastReviewIssues": [{"id": "F-1", "title": "x", "severity": "P9"}, {"title": "no id"}, 7], "extra": 1}',
      );
      db.prepare("UPDATE findings SET sources = ?, attempts = ?").run(
        "nope",
        '[{"cycle": 1, "status": "odd"}]',
      );
      db.prepare("UPDATE events SET data = ?").run("][");
      expect((await store.getRun(run.id))?.meta).toEqual({
        extra: 1,
        lastReviewIssues: [
          {
            id: "F-1",
            file: "",
            lineStart: 0,
            lineEnd: 0,
            severity: "P1",
            title: "x",
            body: "",
            reviewer: "",
          },
        ],
      });
      const [f] = await store.listFindings(t.id);
      expect(f?.sources).toEqual([]);
      expect(f?.attempts).toEqual([
        { cycle: 1, status: "no_report", justification: "", commitSha: null, at: 0 },
      ]);
      expect((await store.listEvents(t.id))[0]?.data).toEqual({});
    });
  });

  it("returns a corrupted checkpoint as its raw text so the engine can report it", async () => {
    await withStore(async (store, db) => {
      const t = await store.createTask(newTask(), 1);
      const run = await store.createRun(t.id, "start", {}, 1);
      const base = { taskId: t.id, runId: run.id, stage: null, findings: [], events: [], task: {}, now: 2 };
      await store.commitStage({ ...base, checkpoint: { state: { next: "fix" } } });
      db.prepare("UPDATE checkpoints SET state = ?").run('{"next": "fi');
      expect((await store.getCheckpoint(run.id))?.state).toBe('{"next": "fi');
    });
  });
});

describe("claims by priority at size", () => {
  it("picks the highest priority, then the oldest, from 20,000 tasks through the covering claim index", async () => {
    const path = join(tempDir(), "f.db");
    const store = await openSqliteStore(path);
    const priorities = Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 11);
    await store.transaction(async (tx) => {
      for (const [i, priority] of priorities.entries()) await tx.createTask(newTask({ priority }), i);
    });
    const claimed: { priority: number; seq: number }[] = [];
    for (let i = 0; i < 50; i++) {
      const t = await store.claimTask({ workerId: "w", leaseMs: 60_000, now: 1 });
      if (t) claimed.push({ priority: t.priority, seq: t.seq });
    }
    const expected = priorities
      .map((priority, i) => ({ priority, seq: i + 1 }))
      .sort((a, b) => b.priority - a.priority || a.seq - b.seq)
      .slice(0, 50);
    expect(claimed).toEqual(expected);
    await store.close();
    const db = new Database(path, { readonly: true });
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${CLAIM_ANY}`)
      .all({ workerId: "w", leaseUntil: 1, now: 1, exclude: "" })
      .map((r) => (r as { detail: string }).detail);
    db.close();
    // The first queued task is the first entry of the partial queue index: no sort, no other row.
    expect(plan).toContain("SCAN tasks USING COVERING INDEX tasks_queue");
    expect(plan).toContain("SEARCH tasks USING INDEX tasks_leases (lease_expires_at<?)");
    expect(plan.join("\n")).not.toMatch(/tasks_status_seq/);
  });
});
