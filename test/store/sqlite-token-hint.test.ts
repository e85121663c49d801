/**
 * Migration 017: each `task_json` row keeps `token_hint`, and `status --json` skips the output's
 * token-shape scan for a page whose rows are all 0. That is only safe while the SQL hint is a
 * superset of redact.ts's TOKEN_HINT, on every text the triggers can write, and while TOKEN_HINT
 * stays the one the migration was written for.
 */
import { createHash } from "node:crypto";
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
import { TOKEN_HINT, TOKEN_SHAPES, TOKEN_START } from "../../src/util/redact.js";
import { newTask } from "./samples.js";

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-token-hint-"));
  dirs.push(dir);
  return join(dir, "fixpoint.db");
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** TOKEN_HINT's literals, each in its own case and in others (the SQL hint ignores case). */
const LITERALS = [
  "sk-",
  "ghp_",
  "gho_",
  "ghu_",
  "ghs_",
  "ghr_",
  "github_pat_",
  "xoxa-",
  "xoxb-",
  "xoxp-",
  "xoxo-",
  "xoxs-",
  "xoxr-",
  "eyJ",
  "-----BEGIN",
  "://",
  ..."KIA SIA GPA IDA ROA IPA NPA NVA BIA CCA".split(" ").map((s) => `A${s}`),
  "Bearer",
  "bearer",
  "BEARER",
  "Authorization",
  "AUTHORIZATION",
];
const anyCase = (s: string) =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(""));
/** Texts near the hint: literals whole, cut, in any case, between JSON-ish filler and near misses. */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(...LITERALS),
      fc.constantFrom(...LITERALS).chain(anyCase),
      fc.constantFrom(...LITERALS).map((s) => s.slice(0, -1)),
      fc.constantFrom('{"title":"', '","reason":', "\\n", "é", "🙂", " ", "_", "-", "gh", "xox", "A", "a"),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 10 },
  )
  .map((a) => a.join(""));

/** TOKEN_HINT with `sk-` only where a token may start. */
const HINT_AT_START = new RegExp(TOKEN_HINT.source.replace("sk-", `${TOKEN_START}sk-`));

/** Around and inside tokens: bodies long enough for every shape, contexts where one may start. */
const tokenText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...LITERALS),
      fc.constantFrom("sk-ant-", "sk-proj-", "github_pat_11AB_", "xoxb-1234-", "Authorization: Bearer "),
      fc.constantFrom(
        "abcdefghijklmnopqrstuvwxyz_-0123",
        "ABCDEFGHIJKLMNOP0123",
        "eyJhbGciOiJ.eyJzdWIiOiJ.sig",
        "u:secretpass@host",
        "-----BEGIN RSA PRIVATE KEY-----",
      ),
      fc.constantFrom(
        "a",
        "9",
        "\\n",
        "\\t",
        "\\u00e9",
        "\\u",
        " ",
        "_",
        "-",
        ".",
        "é",
        "🙂",
        "…",
        "...",
        "=",
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 8 },
  )
  .map((a) => a.join(""));

describe("task_json's token hint (migration 017)", () => {
  it("is for the token shapes and TOKEN_HINT the migration was written for (new ones need a new migration)", () => {
    expect(TOKEN_HINT.source).toBe(
      String.raw`sk-|gh[pousr]_|github_pat_|xox[abposr]-|eyJ|-----BEGIN|:\/\/|A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)|[Bb][Ee][Aa][Rr][Ee][Rr]|[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]`,
    );
    expect(TOKEN_HINT.flags).toBe("");
    const shapes = createHash("sha256")
      .update(TOKEN_SHAPES.map((r) => `${r.source}/${r.flags}`).join("\n"))
      .digest("hex");
    // Changed once without a migration: a URL's scheme bounded to 41 characters (a long `a-a-…`
    // run was read again from every word start). The shape finds less, and still only after `://`,
    // which the hint holds.
    expect(shapes).toBe("c2a6a274c44f3f7164a6519a0e713de9639924986c88b54e26e94fa4b7574850");
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
