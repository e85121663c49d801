/**
 * Migration 017: each `task_json` row keeps `token_hint`, and `status --json` skips the output's
 * token-shape scan for a page whose rows are all 0. That is only safe while the SQL hint is a
 * superset of redact.ts's TOKEN_HINT, on every text the triggers can write, and while TOKEN_HINT
 * stays the one the migration was written for.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "../../src/store/sqlite/migrate.js";
import { tokenHintSql } from "../../src/store/sqlite/migrations/017_task_json_token_hint.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { TOKEN_SHAPES } from "../../src/util/redact.js";
import { newTask } from "./samples.js";
import { expectShapesTheHintsWereWrittenFor, HINT_AT_START, text, tokenText } from "./token-hint-texts.js";

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-token-hint-"));
  dirs.push(dir);
  return join(dir, "fixpoint.db");
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("task_json's token hint (migration 017)", () => {
  it("is for the token shapes and TOKEN_HINT the migration was written for (new ones need a new migration)", () => {
    expectShapesTheHintsWereWrittenFor();
  });

  it("property: whatever a token shape matches, the SQL hint finds", () => {
    const db = new Database(":memory:");
    const hint = db.prepare(`SELECT ${tokenHintSql("@t")} AS h`).pluck();
    const shapes = TOKEN_SHAPES.map((re) => new RegExp(re.source, re.flags.replace("g", "")));
    let shaped = 0;
    fc.assert(
      fc.property(tokenText, (t) => {
        if (!shapes.some((re) => re.test(t))) return;
        shaped++;
        expect(hint.get({ t })).toBe(1);
      }),
      { numRuns: 6000 },
    );
    // The generator reaches the shapes often enough to mean something.
    expect(shaped).toBeGreaterThan(1000);
    db.close();
  });

  it("property: whatever TOKEN_HINT finds (`sk-` where a token may start), the SQL hint finds too", () => {
    const db = new Database(":memory:");
    const hint = db.prepare(`SELECT ${tokenHintSql("@t")} AS h`).pluck();
    fc.assert(
      fc.property(fc.oneof(text, tokenText), (t) => {
        const h = hint.get({ t });
        expect(h === 0 || h === 1).toBe(true);
        if (HINT_AT_START.test(t)) expect(h).toBe(1);
      }),
      { numRuns: 6000 },
    );
    db.close();
  });

  it("is 0 for ordinary task text, so such pages skip the scan", () => {
    const db = new Database(":memory:");
    const hint = db.prepare(`SELECT ${tokenHintSql("@t")} AS h`).pluck();
    const plain =
      '{"id":"t-1","type":"implement","title":"Add mean() and median() to stats, then sort the output","status":"queued","worktree":"/home/ann/src/stats/.fixpoint/worktrees/t-1"}';
    expect(hint.get({ t: plain })).toBe(0);
    // `sk-` inside a word (a branch made from a title) is no token's start.
    expect(hint.get({ t: `${plain},"branch":"fixpoint/t-1-add-a-task-list-for-risk-review"` })).toBe(0);
    for (const start of ["", " ", '"', "/", "\\n", "\\u00e9", "é"])
      expect(hint.get({ t: `${plain}${start}sk-` }), start).toBe(1);
    expect(hint.get({ t: `${plain} Bearer` })).toBe(1);
    db.close();
  });

  it("is kept by the triggers through inserts, hand edits and task updates", async () => {
    const path = tempPath();
    const store = await openSqliteStore(path);
    const plain = await store.createTask(newTask({ title: "plain title" }), 1);
    const shaped = await store.createTask(newTask({ title: "see https://example.com" }), 2);
    const third = await store.createTask(newTask({ title: "a third one" }), 3);
    await store.close();

    const db = new Database(path);
    const hintOf = (seq: number) =>
      db.prepare("SELECT token_hint FROM task_json WHERE seq = ?").pluck().get(seq) as number;
    expect(hintOf(plain.seq)).toBe(0);
    expect(hintOf(shaped.seq)).toBe(1);
    // A hand edit, as a row stored before redaction existed would read.
    db.prepare("UPDATE tasks SET title = ? WHERE seq = ?").run(
      "key ghp_abcdefghijklmnopqrstuvwxyz0123",
      plain.seq,
    );
    expect(hintOf(plain.seq)).toBe(1);
    db.prepare("UPDATE tasks SET title = 'plain again' WHERE seq = ?").run(plain.seq);
    expect(hintOf(plain.seq)).toBe(0);
    db.prepare("UPDATE tasks SET status = 'failed', reason = 'AUTHORIZATION failed' WHERE seq = ?").run(
      shaped.seq,
    );
    db.prepare("UPDATE tasks SET title = 'no link' WHERE seq = ?").run(shaped.seq);
    expect(hintOf(shaped.seq)).toBe(1);
    // What a claim and a stage's spend change print no text: the hint stays 0.
    db.prepare(
      "UPDATE tasks SET status = 'running', updated_at = 9, cost_usd = 1.5e-7, tokens = 3 WHERE seq = ?",
    ).run(third.seq);
    expect(hintOf(third.seq)).toBe(0);
    // A status or a cost that is text prints as text (hand edits): they are screened too.
    db.prepare("UPDATE tasks SET status = 'sk-live-abcdefghijklmnopqrstu' WHERE seq = ?").run(third.seq);
    expect(hintOf(third.seq)).toBe(1);
    db.prepare("UPDATE tasks SET status = 'queued', title = 'reset' WHERE seq = ?").run(third.seq);
    expect(hintOf(third.seq)).toBe(0);
    db.prepare("UPDATE tasks SET cost_usd = 'eyJhbGciOiJIUzI1NiJ9' WHERE seq = ?").run(third.seq);
    expect(hintOf(third.seq)).toBe(1);
    db.prepare("UPDATE tasks SET cost_usd = 0, title = 'reset again' WHERE seq = ?").run(third.seq);
    expect(hintOf(third.seq)).toBe(0);
    db.close();

    const reopened = await openSqliteStore(path);
    expect((await reopened.listTaskJson({ limit: 10 })).tokenFree).toBe(false);
    expect((await reopened.listTaskJson({ limit: 10, ids: [plain.id] })).tokenFree).toBe(true);
    expect((await reopened.listTaskJson({ limit: 10, statuses: ["queued"] })).tokenFree).toBe(true);
    expect((await reopened.listTaskJson({ limit: 10, ids: [plain.id, shaped.id] })).tokenFree).toBe(false);
    expect((await reopened.listTaskJson({ limit: 10, afterSeq: 1_000 })).tokenFree).toBe(false);
    await reopened.close();
  });

  it("is computed for the rows a database held before migration 017", async () => {
    const path = tempPath();
    const old = new Database(path);
    migrate(
      old,
      path,
      MIGRATIONS.filter((m) => m.version < 17),
    );
    const insert = old.prepare(
      "INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, max_cycles, status, created_at, updated_at) VALUES (?, ?, 'implement', ?, 'p', 'default', '/r', 'main', 3, 'queued', 1, 1)",
    );
    insert.run("t-1", 1, "a plain one");
    insert.run("t-2", 2, "one with xoxb-1234-abcdefghijkl");
    old.close();

    const store = await openSqliteStore(path);
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT seq, token_hint FROM task_json ORDER BY seq").raw().all()).toEqual([
      [1, 0],
      [2, 1],
    ]);
    db.close();
    expect((await store.listTaskJson({ limit: 1 })).tokenFree).toBe(true);
    expect((await store.listTaskJson({ limit: 2 })).tokenFree).toBe(false);
    await store.close();
  });
});
