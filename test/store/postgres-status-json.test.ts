/**
 * PostgreSQL's migration 009: each task keeps its `status --json` object in `status_json`, led
 * by its token hint, and `status --json` skips the output's token-shape scan for a page whose rows'
 * hints are all `0`. That is only safe while the hint's expression is a superset of redact.ts's
 * TOKEN_HINT on every text, and while the column follows every write of the row.
 */
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FINAL_VERDICTS, TASK_STATUSES } from "../../src/domain/types.js";
import { migratePg } from "../../src/store/postgres/migrate.js";
import { tokenHintRegex } from "../../src/store/postgres/migrations/009_status_json.js";
import { PG_MIGRATIONS } from "../../src/store/postgres/migrations/index.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { TOKEN_HINT, TOKEN_SHAPES } from "../../src/util/redact.js";
import { type TestDatabase, testDatabase } from "../helpers/pg-server.js";
import { pgFixtures } from "./pg-fixtures.js";
import { newTask } from "./samples.js";
import { expectShapesTheHintsWereWrittenFor, HINT_AT_START, text, tokenText } from "./token-hint-texts.js";

let shared: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  shared = await testDatabase();
  const store = await openPostgresStore(shared.url);
  await store.close();
  client = new pg.Client({ connectionString: shared.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await shared.drop();
});

const { freshDb, open, session } = pgFixtures();

/** The server's hint of each text, in one round trip. */
async function hints(texts: readonly string[]): Promise<boolean[]> {
  const r = await client.query<{ h: boolean }>(
    "SELECT t ~ $2 AS h FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i) ORDER BY i",
    [texts, tokenHintRegex],
  );
  return r.rows.map((row) => row.h);
}

/** PostgreSQL text holds no NUL (the store writes U+FFFD instead). */
const storable = (t: string) => t.replaceAll("\0", "\uFFFD");

describe("status_json and its token hint (PostgreSQL migration 009)", () => {
  it("is for the token shapes and TOKEN_HINT the migration was written for (new ones need a new migration)", () => {
    expectShapesTheHintsWereWrittenFor();
  });

  it("property: whatever a token shape matches, the server's hint finds", async () => {
    const shapes = TOKEN_SHAPES.map((re) => new RegExp(re.source, re.flags.replace("g", "")));
    let shaped = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(tokenText.map(storable), { minLength: 200, maxLength: 200 }),
        async (texts) => {
          const found = await hints(texts);
          texts.forEach((t, i) => {
            if (!shapes.some((re) => re.test(t))) return;
            shaped++;
            expect(found[i], t).toBe(true);
          });
        },
      ),
      { numRuns: 30 },
    );
    // The generator reaches the shapes often enough to mean something.
    expect(shaped).toBeGreaterThan(1000);
  });

  it("property: whatever TOKEN_HINT finds (`sk-` where a token may start), the server's hint finds too", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(text, tokenText).map(storable), { minLength: 200, maxLength: 200 }),
        async (texts) => {
          const found = await hints(texts);
          texts.forEach((t, i) => {
            if (HINT_AT_START.test(t)) expect(found[i], t).toBe(true);
          });
        },
      ),
      { numRuns: 30 },
    );
  });

  it("leaves out only statuses and verdicts that hold no token literal (the reader vouches for those unscanned)", () => {
    for (const v of [...TASK_STATUSES, ...FINAL_VERDICTS])
      expect(TOKEN_HINT.test(JSON.stringify(v)), v).toBe(false);
  });

  it("is false for ordinary task text, so such pages skip the scan", async () => {
    const plain =
      '{"id":"t-1","type":"implement","title":"Add mean() and median() to stats, then sort the output","status":"queued","worktree":"/home/ann/src/stats/.fixpoint/worktrees/t-1"}';
    const starts = ["", " ", '"', "/", "\\n", "\\u00e9", "é"];
    expect(
      await hints([
        plain,
        // `sk-` inside a word (a branch made from a title) is no token's start.
        `${plain},"branch":"fixpoint/t-1-add-a-task-list-for-risk-review"`,
        ...starts.map((s) => `${plain}${s}sk-`),
        `${plain} Bearer`,
      ]),
    ).toEqual([false, false, ...starts.map(() => true), true]);
  });

  it("follow every write of the row that changes what they store; a claim, a heartbeat and a verdict store nothing", async () => {
    const db = await freshDb();
    const store = await open(db.url);
    const plain = await store.createTask(newTask({ title: "plain title" }), 1);
    const shaped = await store.createTask(newTask({ title: "see https://example.com" }), 2);
    const third = await store.createTask(newTask({ title: "a third one" }), 3);

    const direct = await session(db.url);
    const stored = async (seq: number) =>
      (await direct.query<{ s: string }>("SELECT status_json AS s FROM tasks WHERE seq = $1", [seq])).rows[0]
        ?.s;
    const hintOf = async (seq: number) => (await stored(seq))?.startsWith("1");
    /** The task's object as `status --json` prints it, and whether its page vouched for it. */
    const printed = async (id: string) => {
      const page = await store.listTaskJson({ limit: 1, ids: [id] });
      return { ...JSON.parse(Buffer.from(page.json).toString("utf8")), tokenFree: page.tokenFree };
    };
    expect(await hintOf(plain.seq)).toBe(false);
    expect(await hintOf(shaped.seq)).toBe(true);
    // A hand edit, as a row stored before redaction existed would read.
    await direct.query("UPDATE tasks SET title = $1 WHERE seq = $2", [
      "key ghp_abcdefghijklmnopqrstuvwxyz0123",
      plain.seq,
    ]);
    expect(await hintOf(plain.seq)).toBe(true);
    expect((await printed(plain.id)).tokenFree).toBe(false);
    await direct.query("UPDATE tasks SET title = 'plain again' WHERE seq = $1", [plain.seq]);
    expect(await hintOf(plain.seq)).toBe(false);
    expect(await printed(plain.id)).toMatchObject({ title: "plain again", tokenFree: true });
    await direct.query("UPDATE tasks SET status = 'failed', reason = 'AUTHORIZATION failed' WHERE seq = $1", [
      shaped.seq,
    ]);
    await direct.query("UPDATE tasks SET title = 'no link' WHERE seq = $1", [shaped.seq]);
    expect(await hintOf(shaped.seq)).toBe(true);

    // A claim and a heartbeat through the store change nothing the row stores (no call on the
    // server); what they change is printed all the same.
    const before = await stored(plain.seq);
    const claimed = await store.claimTask({ workerId: "w1", leaseMs: 60_000, now: 10 });
    expect(claimed?.id).toBe(plain.id);
    expect(await stored(plain.seq)).toBe(before);
    expect(await printed(plain.id)).toMatchObject({
      status: "running",
      updated_at: "1970-01-01T00:00:00.010Z",
    });
    const lease = { taskId: plain.id, workerId: "w1", token: claimed?.leaseToken ?? 0 };
    expect(await store.heartbeat(lease, 60_000, 20)).toBe(true);
    expect(await stored(plain.seq)).toBe(before);
    // A completion's verdict neither; its reason and cycle are stored again.
    await store.releaseTask(lease, { status: "completed", finalVerdict: "APPROVED" }, 30);
    expect(await stored(plain.seq)).toBe(before);
    expect(await printed(plain.id)).toMatchObject({
      status: "completed",
      final_verdict: "APPROVED",
      updated_at: "1970-01-01T00:00:00.030Z",
      tokenFree: true,
    });
    await store.updateTask(plain.id, { reason: "done in 2 cycles", cycle: 2 }, 40);
    expect(await stored(plain.seq)).not.toBe(before);
    expect(await printed(plain.id)).toMatchObject({
      reason: "done in 2 cycles",
      cycle: 2,
      tokenFree: true,
    });
    await direct.query("UPDATE tasks SET cost_usd = 1.5e-7, tokens = 3 WHERE seq = $1", [third.seq]);
    expect(await hintOf(third.seq)).toBe(false);
    expect(await printed(third.id)).toMatchObject({ cost_usd: 1.5e-7, tokens: 3, tokenFree: true });
    // A status or verdict fixpoint never writes is printed, and its page scanned.
    await direct.query("UPDATE tasks SET status = 'sk-live-abcdefghijklmnopqrstu' WHERE seq = $1", [
      third.seq,
    ]);
    expect(await hintOf(third.seq)).toBe(false);
    expect(await printed(third.id)).toMatchObject({
      status: "sk-live-abcdefghijklmnopqrstu",
      tokenFree: false,
    });
    await direct.query("UPDATE tasks SET status = 'queued', final_verdict = 'Bearer x' WHERE seq = $1", [
      third.seq,
    ]);
    expect(await printed(third.id)).toMatchObject({ final_verdict: "Bearer x", tokenFree: false });

    expect((await store.listTaskJson({ limit: 10 })).tokenFree).toBe(false);
    expect((await store.listTaskJson({ limit: 10, ids: [plain.id] })).tokenFree).toBe(true);
    expect((await store.listTaskJson({ limit: 10, ids: [plain.id, third.id] })).tokenFree).toBe(false);
    expect((await store.listTaskJson({ limit: 10, ids: [plain.id, shaped.id] })).tokenFree).toBe(false);
    expect((await store.listTaskJson({ limit: 10, afterSeq: 1_000 })).tokenFree).toBe(false);
  });

  it("a row it cannot print fails the listing with a clear error, and the store goes on", async () => {
    const db = await freshDb();
    const store = await open(db.url, { pool: { max: 1 } });
    const task = await store.createTask(newTask({ title: "from the far future" }), 1);
    // Past what a JavaScript date holds (±8.64e15 ms): no object can print it.
    await (await session(db.url)).query("UPDATE tasks SET updated_at = 9000000000000000 WHERE id = $1", [
      task.id,
    ]);
    await expect(store.listTaskJson({ limit: 10 })).rejects.toThrow(/listing tasks.*Invalid time value/s);
    // The one pooled connection finished the statement: the next one is answered.
    expect((await store.getTask(task.id))?.title).toBe("from the far future");
  });

  it("a listing the server refuses fails with the server's error, not a wait", async () => {
    const db = await freshDb();
    const first = await openPostgresStore(db.url);
    await first.createTask(newTask({ title: "behind a lock" }), 1);
    await first.close();
    // The store's next connections give up waiting for a lock after 200 ms.
    const admin = await session(db.url);
    await admin.query(`ALTER DATABASE ${new URL(db.url).pathname.slice(1)} SET lock_timeout = '200ms'`);
    const store = await open(db.url);
    await admin.query("BEGIN");
    await admin.query("LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE");
    await expect(store.listTaskJson({ limit: 10 })).rejects.toThrow(/lock timeout/);
    await admin.query("ROLLBACK");
    expect((await store.listTaskJson({ limit: 10 })).count).toBe(1);
  }, 20_000);

  it("a listing whose connection drops is asked again on another, from its first row", async () => {
    const db = await freshDb();
    const store = await open(db.url);
    for (let i = 0; i < 3; i++) await store.createTask(newTask({ title: `task ${i}` }), i);
    const admin = await session(db.url);
    await admin.query("BEGIN");
    await admin.query("LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE");
    const listing = store.listTaskJson({ limit: 10 });
    // The listing waits for the lock; its connection is cut there, then the lock released. It is
    // looked for from a session outside any transaction: inside one, pg_stat_activity is read
    // once and kept, so a listing that arrives after the first look would never be seen.
    const watcher = await session(db.url);
    let pid: number | undefined;
    for (let waited = 0; pid === undefined && waited < 10_000; waited += 50) {
      const r = await watcher.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT status_json%' AND pid <> pg_backend_pid()",
      );
      pid = r.rows[0]?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(pid).toBeDefined();
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await admin.query("ROLLBACK");
    const page = await listing;
    expect(page.count).toBe(3);
    expect(
      JSON.parse(`[${Buffer.from(page.json).toString("utf8")}]`).map((t: { title: string }) => t.title),
    ).toEqual(["task 0", "task 1", "task 2"]);
  }, 20_000);

  it("is computed for the rows a database held before migration 009", async () => {
    const db = await freshDb();
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await migratePg(
        pool,
        db.url,
        PG_MIGRATIONS.filter((m) => m.version < 9),
      );
      const insert =
        "INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, max_cycles, status, created_at, updated_at) VALUES ($1, $2, 'implement', $3, 'p', 'default', '/r', 'main', 3, 'queued', 1, 1)";
      await pool.query(insert, ["t-1", 1, "a plain one"]);
      await pool.query(insert, ["t-2", 2, "one with xoxb-1234-abcdefghijkl"]);
    } finally {
      await pool.end();
    }
    const store = await open(db.url);
    const first = await store.listTaskJson({ limit: 1 });
    expect(first.tokenFree).toBe(true);
    expect(JSON.parse(Buffer.from(first.json).toString("utf8")).title).toBe("a plain one");
    expect((await store.listTaskJson({ limit: 2 })).tokenFree).toBe(false);
  });
});
