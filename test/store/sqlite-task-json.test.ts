/**
 * What only SQLite has behind `listTaskJson`: the text of each task kept by triggers in
 * `task_json` (migration 012). Older databases are backfilled, hand edits through SQL keep it
 * right, and a page reads the listing index and the stored text without sorting, so
 * `status --json` grows linearly with the number of tasks. The contract (contract-task-json.ts)
 * checks the text after every store write.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { statusFilter } from "../../src/app/status.js";
import { taskJson } from "../../src/cli/render/json.js";
import type { Store, TaskFilter } from "../../src/domain/store.js";
import { migrate } from "../../src/store/sqlite/migrate.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { taskJsonOnlyPageSql, taskJsonPageSql } from "../../src/store/sqlite/task-json-sql.js";
import { filterSql } from "../../src/store/sqlite/task-sql.js";
import { newTask } from "./samples.js";

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-task-json-"));
  dirs.push(dir);
  return join(dir, "fixpoint.db");
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every task's `status --json` object as the store lists it, and as the CLI would write it. */
async function listed(store: Store): Promise<{ stored: unknown[]; expected: unknown[] }> {
  const page = await store.listTaskJson({ limit: 1000 });
  return {
    stored: JSON.parse(`[${page.json}]`),
    expected: (await store.listTaskSummaries({ limit: 1000 })).map(taskJson),
  };
}

describe("SQLite task_json", () => {
  it("is filled for the tasks a database held before migration 012", async () => {
    const path = tempPath();
    const old = new Database(path);
    migrate(
      old,
      path,
      MIGRATIONS.filter((m) => m.version < 12),
    );
    const insert = old.prepare(
      "INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, max_cycles, status, reason, parent_id, created_at, updated_at) VALUES (?, ?, 'implement', ?, 'p', 'default', '/r', 'main', 3, ?, ?, ?, ?, ?)",
    );
    insert.run("t-1", 1, 'quote " and é 🙂', "queued", null, null, 1_700_000_000_005, 1_700_000_000_999);
    insert.run("t-2", 2, "second", "needs_human", "line\nbreak", "t-1", 86_400_000, 86_400_001);
    old
      .prepare(
        "INSERT INTO runs (id, task_id, kind, status, started_at) VALUES (1, 't-2', 'start', 'running', 1)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO stage_executions (run_id, task_id, stage_id, kind, visit, cycle, outcome, started_at, ended_at, input_tokens, output_tokens, cost_usd) VALUES (1, 't-2', 's', 'agent', 1, 0, 'success', 1, 2, 100, 20, 0.0125)",
      )
      .run();
    old.close();

    const store = await openSqliteStore(path);
    try {
      const { stored, expected } = await listed(store);
      expect(expected).toHaveLength(2);
      expect(stored).toEqual(expected);
      expect(stored[1]).toMatchObject({ cost_usd: 0.0125, tokens: 120, parent_id: "t-1" });
    } finally {
      await store.close();
    }
  });

  it("follows writes made with plain SQL, deletes included", async () => {
    const path = tempPath();
    const store = await openSqliteStore(path);
    try {
      for (const title of ["one", "two", "three"]) await store.createTask(newTask({ title }), 10);
      const hand = new Database(path);
      hand.prepare("UPDATE tasks SET title = 'edited by hand', cost_usd = 2.5 WHERE id = 't-1'").run();
      hand.prepare("DELETE FROM tasks WHERE id = 't-2'").run();
      hand.prepare("UPDATE tasks SET seq = 9 WHERE id = 't-3'").run();
      hand.close();
      const { stored, expected } = await listed(store);
      expect(stored).toEqual(expected);
      expect(stored).toMatchObject([{ title: "edited by hand", cost_usd: 2.5 }, { title: "three" }]);
      const newestFirst = await store.listTaskJson({ limit: 10, newestFirst: true });
      expect(JSON.parse(`[${newestFirst.json}]`).map((t: { id: string }) => t.id)).toEqual(["t-3", "t-1"]);
      expect(newestFirst.lastSeq).toBe(1);
      // The filter columns `task_json` keeps (migration 015) follow plain SQL too.
      const again = new Database(path);
      again.prepare("UPDATE tasks SET status = 'cancelled', updated_at = 99 WHERE id = 't-1'").run();
      again.close();
      const queued = await store.listTaskJson({ limit: 10, statuses: ["queued"] });
      expect(JSON.parse(`[${queued.json}]`).map((t: { id: string }) => t.id)).toEqual(["t-3"]);
      const since = await store.listTaskJson({ limit: 10, updatedSince: 50 });
      expect(JSON.parse(`[${since.json}]`).map((t: { id: string }) => t.id)).toEqual(["t-1"]);
    } finally {
      await store.close();
    }
  });

  /**
   * The query plan of a page for each of `status`'s filters, both ways round, with the page SQL
   * `pageSql` builds from the filter and its WHERE clause.
   */
  function pagePlans(pageSql: (clause: string, filter: TaskFilter) => string | null): string[] {
    const path = tempPath();
    const db = new Database(path);
    try {
      migrate(db, path);
      const plans: string[] = [];
      for (const query of [{}, { all: true }, { statuses: ["failed"] }, { since: "12h" }]) {
        for (const newestFirst of [false, true]) {
          const filter = {
            ...statusFilter(query, 1_700_000_000_000),
            limit: 5000,
            newestFirst,
            afterSeq: 10,
          };
          const { clause, params } = filterSql(filter, false, true);
          const sql = pageSql(clause, filter);
          if (sql === null) throw new Error(`no page SQL for ${JSON.stringify(filter)}`);
          const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[];
          plans.push(rows.map((r) => r.detail).join("\n"));
        }
      }
      return plans;
    } finally {
      db.close();
    }
  }

  it("reads a page through the listing index and the stored text, with no sort", () => {
    for (const plan of pagePlans((clause, filter) => taskJsonPageSql(clause, filter.newestFirst === true))) {
      // With no status to test (`--all`), the unique index on seq alone covers the page.
      expect(plan).toMatch(
        /SEARCH tasks USING COVERING INDEX (tasks_listing|sqlite_autoindex_tasks_2) \(seq[<>]\?\)/,
      );
      expect(plan).toMatch(/SEARCH j USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN tasks|SCAN j$/m);
    }
  });

  it("reads a page of status's own filters from the stored text alone, with no sort", () => {
    for (const plan of pagePlans(taskJsonOnlyPageSql)) {
      expect(plan).toMatch(/SEARCH task_json USING INTEGER PRIMARY KEY \(rowid[<>]\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE|tasks_listing/);
    }
    // A filter on a column only `tasks` has goes through the listing index.
    expect(taskJsonOnlyPageSql("", { ids: ["t-1"] })).toBeNull();
    expect(taskJsonOnlyPageSql("", { parentId: "t-1" })).toBeNull();
  });
});
