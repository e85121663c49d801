/**
 * `fixpoint status`'s table from PostgreSQL (task-line-page.ts): a page's lines written from its
 * columns' bytes. The property, on a real server: whatever a row holds, a page the store vouches
 * for (`lines` not null) is byte for byte what statusLine writes for the same tasks at the same
 * width, after inserts, updates and hand edits; and ordinary tasks are vouched for.
 */
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/store.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { type TestDatabase, testDatabase } from "../helpers/pg-server.js";
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

let db: TestDatabase;
let store: Store;
let client: pg.Client;
beforeAll(async () => {
  db = await testDatabase();
  store = await openPostgresStore(db.url);
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await store.close();
  await db.drop();
});

const COLUMNS = [
  "id",
  "type",
  "title",
  "status",
  "final_verdict",
  "reason",
  "cycle",
  "max_cycles",
  "current_stage",
  "parent_id",
  "cost_usd",
];
const values = (t: RawTask) => [
  t.id,
  t.type,
  t.title,
  t.status,
  t.finalVerdict,
  t.reason,
  t.cycle,
  t.maxCycles,
  t.currentStage,
  t.parentId,
  t.costUsd,
];

/** The tasks as rows written by hand (any type, status and verdict), seq from 1, after emptying the table. */
async function insertAll(tasks: RawTask[]): Promise<void> {
  await client.query("TRUNCATE tasks CASCADE");
  const params: unknown[] = [];
  const rows = tasks.map((t, i) => {
    const at = params.length;
    params.push(...values(t), i + 1);
    const cells = COLUMNS.map((_, c) => `$${at + c + 1}`).join(", ");
    return `(${cells}, $${at + COLUMNS.length + 1}, 'p', 'default', '/r', 'main', 1700000000000, 1700000000000)`;
  });
  await client.query(
    `INSERT INTO tasks (${COLUMNS.join(", ")}, seq, prompt, workflow, repo, base_branch, created_at, updated_at)
     VALUES ${rows.join(", ")}`,
    params,
  );
}

async function edit(seq: number, t: RawTask): Promise<void> {
  const set = COLUMNS.filter((c) => c !== "id")
    .map((c, i) => `${c} = $${i + 1}`)
    .join(", ");
  await client.query(`UPDATE tasks SET ${set} WHERE seq = $${COLUMNS.length}`, [...values(t).slice(1), seq]);
}

describe("PostgreSQL task lines (task-line-page.ts)", () => {
  it("vouches only for pages statusLine would write the same, after inserts, updates and hand edits", async () => {
    let vouched = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(rawTask, fc.nat(11)), { minLength: 1, maxLength: 24 }),
        fc.array(fc.tuple(fc.nat(23), rawTask), { maxLength: 8 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 12 }),
        async (rows, edits, limit, startWidth) => {
          const tasks = rows.map(([t, pick], i) => ({ ...t, id: idOf(i, pick) }));
          await insertAll(tasks);
          for (const [at, t] of edits) await edit((at % tasks.length) + 1, { ...t, id: "" });
          vouched += await checkPages(store, { excludeStatuses: ["cancelled"] }, limit, startWidth);
          vouched += await checkPages(store, { statuses: ["needs_human"] }, limit, startWidth);
          // A secret value of the printing process in a text: its page is the CLI's.
          vouched += await checkPages(store, {}, limit, startWidth, [SECRET]);
          vouched += await checkPages(store, { ids: tasks.slice(0, 5).map((t) => t.id) }, limit, startWidth);
        },
      ),
      { numRuns: 40 },
    );
    // The generated rows are mostly ordinary: the comparison above must have run, not only the fallback.
    expect(vouched).toBeGreaterThan(15);
  });

  it("serves ordinary tasks from their columns, padding ids that grow a digit", async () => {
    await client.query("TRUNCATE tasks CASCADE");
    // A failed task's reason to fold (`\s+` → one space), which SQLite's stored lines leave to the CLI.
    const pages = await ordinaryTasks(store, "gate test failed:\n  3 tests");
    await client.query("UPDATE tasks SET cost_usd = 0.125 * seq WHERE seq % 3 <> 0");
    expect(await checkPages(store, { excludeStatuses: ["cancelled"] }, 4, 0)).toBe(pages);
  });

  it("leaves a page with a secret value of the environment, or a text that may hold a token, to the CLI", async () => {
    await client.query("TRUNCATE tasks CASCADE");
    await expectSecretsAndTokensLeftToTheCli(store);
  });

  it("serves tasks whose texts only look as if they may hold a token (a URL), and not one holding a token", async () => {
    await client.query("TRUNCATE tasks CASCADE");
    await expectUrlsServedAndTokensNot(store, async () => {
      const hints = await client.query<{ h: string }>(
        "SELECT left(status_json, 1) AS h FROM tasks ORDER BY seq",
      );
      // The server's hint is set for both: the page is served although it is.
      expect(hints.rows.map((r) => r.h)).toEqual(["1", "1"]);
    });
  });
});
