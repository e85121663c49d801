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
import { statusLines } from "../../src/cli/render/status.js";
import type { Store, TaskFilter } from "../../src/domain/store.js";
import { FINAL_VERDICTS, TASK_STATUSES, TASK_TYPES } from "../../src/domain/types.js";
import { migrate } from "../../src/store/sqlite/migrate.js";
import {
  LINE_STATUSES,
  LINE_TYPES,
  LINE_VERDICTS,
} from "../../src/store/sqlite/migrations/018_task_lines.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { secretValues } from "../../src/util/redact.js";
import { newTask } from "./samples.js";

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-task-lines-"));
  dirs.push(dir);
  return join(dir, "fixpoint.db");
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A row of `tasks` as a hand edit or an older fixpoint may have left it. */
interface RawTask {
  id: string;
  type: string;
  title: string;
  status: string;
  finalVerdict: string | null;
  reason: string | null;
  cycle: number;
  maxCycles: number;
  currentStage: string | null;
  parentId: string | null;
  costUsd: number;
}

/** A secret value of the printing process, in some texts: a page holding it is left to the CLI. */
const SECRET = "s3cr3t-v4lue";

/** Texts around what a line cuts, pads and folds: mostly ordinary, some with every kind of whitespace and emoji. */
const text = (max: number) => {
  const parts = (wild: boolean) =>
    fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz ABC-_:/.0123456789") },
        { weight: 1, arbitrary: fc.constantFrom("é", "ß", "日本", "—", "…", "·", "→", "✓", SECRET) },
        ...(wild
          ? [
              {
                weight: 1,
                arbitrary: fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\ufeff"),
              },
              { weight: 1, arbitrary: fc.constantFrom("🙂", "𝒳", "\u{10ffff}") },
            ]
          : []),
      ),
      { maxLength: max },
    );
  return fc
    .oneof({ weight: 4, arbitrary: parts(false) }, { weight: 1, arbitrary: parts(true) })
    .map((p) => p.join(""));
};
const odd = <T, U>(usual: fc.Arbitrary<T>, unusual: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 8, arbitrary: usual }, { weight: 1, arbitrary: unusual });

const rawTask: fc.Arbitrary<Omit<RawTask, "id">> = fc.record({
  type: odd(fc.constantFrom(...TASK_TYPES), fc.constantFrom("other", "")),
  title: text(40),
  status: odd(fc.constantFrom(...TASK_STATUSES), fc.constant("odd")),
  finalVerdict: fc.oneof(
    fc.constant(null),
    odd(fc.constantFrom(...FINAL_VERDICTS), fc.constantFrom("", "MAYBE")),
  ),
  reason: fc.oneof(fc.constant(null), text(90)),
  cycle: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(1)),
  maxCycles: fc.integer({ min: 1, max: 12 }),
  currentStage: fc.oneof(
    fc.constant(null),
    fc.constant(""),
    odd(fc.constantFrom("review", "fix-2"), fc.constantFrom("review ", "sign off\t")),
    text(12),
  ),
  parentId: fc.oneof(
    fc.constant(null),
    fc.constant(""),
    odd(fc.constant("t-1"), fc.constantFrom("t-2 ", "t-3\t")),
  ),
  costUsd: fc.oneof(
    fc.constant(0),
    fc.double({ min: 0, max: 1e6, noNaN: true }),
    odd(fc.constantFrom(0.005, 0.125, 1.005, 2.675), fc.constantFrom(1e15, 3e20)),
  ),
});

/** Ids as fixpoint makes them, and explicit ones of other lengths and alphabets. */
const idOf = (i: number, pick: number): string =>
  (pick < 8 ? "t-" : ["gh-owner-repo-", "é-", "🙂-", "x"][pick % 4]) +
  String(i + 1).padStart(1 + (pick % 3), "0");

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

/**
 * Lists the table page by page through listTaskLines and checks every vouched page against
 * statusLine over listTaskSummaries' page. Returns how many pages were vouched for.
 */
async function checkPages(
  store: Store,
  filter: TaskFilter,
  limit: number,
  startWidth: number,
  secrets: readonly string[] = secretValues(process.env),
): Promise<number> {
  let width = startWidth;
  let vouched = 0;
  let after: number | undefined;
  for (;;) {
    const page = await store.listTaskLines?.({
      ...filter,
      limit,
      ...(after === undefined ? {} : { afterSeq: after }),
      idWidth: width,
      secrets,
    });
    if (!page) throw new Error("the SQLite store lists lines");
    const tasks = await store.listTaskSummaries({
      ...filter,
      limit,
      ...(after === undefined ? {} : { afterSeq: after }),
    });
    expect(page.count).toBe(tasks.length);
    const holdsSecret = tasks.some((t) =>
      [t.title, t.reason ?? "", t.currentStage ?? ""].some((x) => secrets.some((v) => x.includes(v))),
    );
    if (holdsSecret) expect(page.lines).toBeNull();
    let expectedWidth = width;
    for (const t of tasks) expectedWidth = Math.max(expectedWidth, t.id.length);
    if (page.lines !== null && tasks.length > 0) {
      expect(Buffer.from(page.lines).toString("utf8")).toBe(statusLines(tasks, expectedWidth));
      expect(page.idWidth).toBe(expectedWidth);
      vouched++;
    }
    width = expectedWidth;
    if (page.lastSeq === null || page.count < limit) return vouched;
    expect(page.lastSeq).toBe(tasks.at(-1)?.seq);
    after = page.lastSeq;
  }
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
      const titles = [
        "Fix the parser",
        "Café menu — prices in €",
        "日本語の題名",
        "A title far longer than the column holds",
      ];
      for (let i = 0; i < 23; i++) {
        const t = await store.createTask(
          newTask({ title: titles[i % titles.length] as string }),
          1_700_000_000_000 + i,
        );
        const status = (["queued", "running", "completed", "needs_human", "failed"] as const)[i % 5];
        await store.updateTask(
          t.id,
          {
            status,
            cycle: i % 3,
            currentStage: i % 2 === 0 ? "review" : null,
            ...(status === "completed" ? { finalVerdict: i % 4 === 0 ? "APPROVED" : "NO_PROGRESS" } : {}),
            ...(status === "failed" ? { reason: "gate test failed: 3 tests" } : {}),
          },
          1_700_000_000_100 + i,
        );
      }
      // 23 tasks in pages of 4: ids t-1 … t-23 grow from 3 to 4 characters on the third page.
      const pages = Math.ceil(23 / 4);
      expect(await checkPages(store, { excludeStatuses: ["cancelled"] }, 4, 0)).toBe(pages);
    } finally {
      await store.close();
    }
  });

  it("leaves a page whose title holds a secret value of the environment to the CLI", async () => {
    const path = tempPath();
    const store = await openSqliteStore(path);
    try {
      const secret = "s3cr3t-value-0123456789";
      await store.createTask(newTask({ title: `A long title that ends with ${secret}` }), 1_700_000_000_000);
      const page = await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: [secret] });
      expect(page?.count).toBe(1);
      expect(page?.lines).toBeNull();
      const plain = await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: ["not-in-any-text"] });
      expect(plain?.lines).not.toBeNull();
    } finally {
      await store.close();
    }
  });
});
