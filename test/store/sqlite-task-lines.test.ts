/**
 * Migration 018: `task_json` keeps each task's `fixpoint status` line, and a page of the table is
 * those lines joined in the database. The property: whatever a row holds, a page the store vouches
 * for (`lines` not null) is byte for byte what statusLine writes for the same tasks at the same
 * width, after inserts, updates, hand edits and the backfill of an older database; and ordinary
 * tasks are vouched for (the fast path is taken, not only allowed).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { FINAL_VERDICTS, TASK_STATUSES, TASK_TYPES } from "../../src/domain/types.js";
import { migrate } from "../../src/store/sqlite/migrate.js";
import {
  LINE_STATUSES,
  LINE_TYPES,
  LINE_VERDICTS,
} from "../../src/store/sqlite/migrations/018_task_lines.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { newTask } from "./samples.js";
import {
  checkPages,
  expectSecretsAndTokensLeftToTheCli,
  expectUrlsServedAndTokensNot,
  idOf,
  ordinaryTasks,
  type RawTask,
  rawTask,
  SECRET,
} from "./task-lines-check.js";

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-task-lines-"));
  dirs.push(dir);
  return join(dir, "fixpoint.db");
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const INSERT = `INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, max_cycles, status,
  final_verdict, reason, cycle, current_stage, parent_id, cost_usd, created_at, updated_at)
  VALUES (@id, @seq, @type, @title, 'p', 'default', '/r', 'main', @maxCycles, @status, @finalVerdict, @reason,
  @cycle, @currentStage, @parentId, @costUsd, 1700000000000, 1700000000000)`;

function insertAll(db: Database.Database, tasks: RawTask[]): void {
  const insert = db.prepare(INSERT);
  db.transaction(() => {
    tasks.forEach((t, i) => {
      insert.run({ ...t, seq: i + 1 });
    });
  })();
}

describe("SQLite task lines (migration 018)", () => {
  it("keeps the frozen value lists of the migration equal to the code's", () => {
    expect(LINE_TYPES).toEqual([...TASK_TYPES]);
    expect(LINE_STATUSES).toEqual([...TASK_STATUSES]);
    expect(LINE_VERDICTS).toEqual([...FINAL_VERDICTS]);
  });

  it("vouches only for pages statusLine would write the same, after inserts, updates and the backfill", async () => {
    let vouched = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(rawTask, fc.nat(11)), { minLength: 1, maxLength: 24 }),
        fc.array(fc.tuple(fc.nat(23), rawTask), { maxLength: 8 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 12 }),
        async (rows, edits, backfill, limit, startWidth) => {
          const path = tempPath();
          const tasks = rows.map(([t, pick], i) => ({ ...t, id: idOf(i, pick) }));
          const db = new Database(path);
          // Before 018 the rows get their lines from the backfill; after, from the triggers.
          migrate(db, path, backfill ? MIGRATIONS.filter((m) => m.version < 18) : MIGRATIONS);
          insertAll(db, tasks);
          migrate(db, path, MIGRATIONS);
          const update = db.prepare(
            `UPDATE tasks SET type = @type, title = @title, status = @status, final_verdict = @finalVerdict,
              reason = @reason, cycle = @cycle, max_cycles = @maxCycles, current_stage = @currentStage,
              parent_id = @parentId, cost_usd = @costUsd WHERE seq = @seq`,
          );
          for (const [at, t] of edits) update.run({ ...t, seq: (at % tasks.length) + 1 });
          db.close();
          const store = await openSqliteStore(path);
          try {
            vouched += await checkPages(store, { excludeStatuses: ["cancelled"] }, limit, startWidth);
            vouched += await checkPages(store, { statuses: ["needs_human"] }, limit, startWidth);
            // A secret value of the printing process in a text: its page is the CLI's.
            vouched += await checkPages(store, {}, limit, startWidth, [SECRET]);
            vouched += await checkPages(
              store,
              { ids: tasks.slice(0, 5).map((t) => t.id) },
              limit,
              startWidth,
            );
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 60 },
    );
    // The generated rows are mostly ordinary: the comparison above must have run, not only the fallback.
    expect(vouched).toBeGreaterThan(20);
  });

  it("serves ordinary tasks from the stored lines, padding ids that grow a digit", async () => {
    const path = tempPath();
    const store = await openSqliteStore(path);
    try {
      const pages = await ordinaryTasks(store, "gate test failed: 3 tests");
      expect(await checkPages(store, { excludeStatuses: ["cancelled"] }, 4, 0)).toBe(pages);
    } finally {
      await store.close();
    }
  });

  it("serves tasks whose texts only look as if they may hold a token (a URL), and not one holding a token", async () => {
    const path = tempPath();
    const store = await openSqliteStore(path);
    try {
      await expectUrlsServedAndTokensNot(store);
    } finally {
      await store.close();
    }
  });

  it("leaves a page to the CLI when a row has no stored line, even beside a row its hint alone left inexact", async () => {
    const path = tempPath();
    const store = await openSqliteStore(path);
    try {
      await store.createTask(
        newTask({ title: "Crash from https://github.com/o/r/issues/1" }),
        1_700_000_000_000,
      );
      await store.createTask(newTask({ title: "Plain" }), 1_700_000_000_001);
      expect((await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: [] }))?.lines).not.toBeNull();
      const db = new Database(path);
      db.prepare("DELETE FROM task_lines WHERE seq = 2").run();
      db.close();
      // Listed through the tasks (a filter task_lines cannot answer), as a secret value is too.
      const page = await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: [], ids: ["t-1", "t-2"] });
      expect(page?.count).toBe(2);
      expect(page?.lines).toBeNull();
    } finally {
      await store.close();
    }
  });

  it("leaves a page with a secret value of the environment, or a text that may hold a token, to the CLI", async () => {
    const path = tempPath();
    const store = await openSqliteStore(path);
    try {
      await expectSecretsAndTokensLeftToTheCli(store);
    } finally {
      await store.close();
    }
  });
});
