/**
 * WAL checkpoints off the committing thread (src/store/sqlite/background-checkpoints.ts), with
 * the compiled thread file of dist/ (built by the global setup): the thread copies the log into
 * the database file while the committing connection only keeps a backstop, and when the thread
 * is gone or cannot start the connection checkpoints itself again.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/store.js";
import {
  BACKSTOP_FRAMES,
  FRAMES_BEFORE_THREAD,
  INLINE_FRAMES,
  startBackgroundCheckpoints,
  WRITES_BEFORE_THREAD,
  walHasReached,
} from "../../src/store/sqlite/background-checkpoints.js";
import { openDatabase } from "../../src/store/sqlite/connection.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { newTask } from "./samples.js";

const THREAD = new URL("../../dist/store/sqlite/checkpoint-thread.js", import.meta.url);
/** The same thread as the bundled binary starts it (scripts/bundle-cli.mjs). */
const BUNDLED_THREAD = new URL("../../dist/bin/checkpoint-thread.js", import.meta.url);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function database(): { db: Database.Database; path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-ckpt-"));
  dirs.push(dir);
  const path = join(dir, "f.db");
  const db = openDatabase(path, 1000);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  return { db, path, dir };
}

const frames = (db: Database.Database) => db.pragma("wal_autocheckpoint", { simple: true });

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Rows the database file holds without its WAL: what checkpoints have copied into it. A copy
 * taken while a checkpoint writes may be torn: that reads as "not yet" (-1).
 */
function rowsInFile(path: string, dir: string): number {
  const copy = join(dir, "copy.db");
  copyFileSync(path, copy);
  let db: Database.Database | undefined;
  try {
    db = new Database(copy, { readonly: true });
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 't'").get();
    return table === undefined ? 0 : Number(db.prepare("SELECT COUNT(*) FROM t").pluck().get());
  } catch {
    return -1;
  } finally {
    db?.close();
  }
}

describe("background WAL checkpoints", () => {
  it.each([
    ["compiled", THREAD],
    ["bundled", BUNDLED_THREAD],
  ])(
    "copy the log into the database from another thread (%s) while commits only keep a backstop",
    async (_, threadUrl) => {
      const { db, path, dir } = database();
      const bg = startBackgroundCheckpoints(db, path, { threadUrl, everyMs: 20 });
      await until(() => frames(db) === BACKSTOP_FRAMES);
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      // Far fewer frames than the backstop, more than SQLite's own mark: only the thread copies them.
      for (let i = 0; i < 1500; i++) insert.run(`row ${i}`);
      await until(() => rowsInFile(path, dir) === 1500);
      await bg.stop();
      expect(frames(db)).toBe(INLINE_FRAMES);
      db.close();
    },
  );

  it("leave checkpoints to the committing connection when the thread cannot start", async () => {
    const { db, path } = database();
    const bg = startBackgroundCheckpoints(db, path, { threadUrl: new URL("./no-such-thread.js", THREAD) });
    await new Promise((r) => setTimeout(r, 300));
    expect(frames(db)).toBe(INLINE_FRAMES);
    await bg.stop();
    db.close();
  });

  it("hand checkpoints back when the thread's connection fails", async () => {
    const { db, dir } = database();
    const bg = startBackgroundCheckpoints(db, join(dir, "missing.db"), { threadUrl: THREAD, everyMs: 20 });
    await new Promise((r) => setTimeout(r, 500));
    expect(frames(db)).toBe(INLINE_FRAMES);
    await bg.stop();
    db.close();
  });
});

/** Whether `store` has started its checkpoint thread (a private field: the thread is invisible). */
const threadStarted = (store: Store): boolean =>
  (store as unknown as { checkpoints: { thread: unknown } }).checkpoints.thread !== null;

describe("when a store starts its checkpoint thread", () => {
  it("not while its WAL stays small, however many writes it makes", async () => {
    const { dir } = database();
    const path = join(dir, "store.db");
    // Made and closed first: a new file's migrations alone fill a large WAL, removed on close.
    const made = await openSqliteStore(path);
    const task = await made.createTask(newTask(), 1);
    await made.close();
    const store = await openSqliteStore(path);
    try {
      for (let i = 0; i < WRITES_BEFORE_THREAD * 3; i++) {
        await store.updateTask(task.id, { currentStage: `s${i % 7}` }, 2 + i);
      }
      const reader = new Database(path, { readonly: true });
      const pageSize = Number(reader.pragma("page_size", { simple: true }));
      reader.close();
      expect(walHasReached(path, FRAMES_BEFORE_THREAD, pageSize)).toBe(false);
      expect(threadStarted(store)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("once its WAL has grown most of the way to SQLite's own checkpoint", async () => {
    const { dir } = database();
    const path = join(dir, "store.db");
    const store = await openSqliteStore(path);
    try {
      const prompt = "p".repeat(6000);
      let writes = 0;
      const pageSize = 4096;
      while (!walHasReached(path, FRAMES_BEFORE_THREAD, pageSize) || writes < WRITES_BEFORE_THREAD) {
        await store.createTask(newTask({ prompt }), 1);
        writes++;
        expect(writes).toBeLessThan(5000);
      }
      // The WAL's size is looked at every few writes, not after each.
      for (let i = 0; i < 32 && !threadStarted(store); i++) await store.createTask(newTask(), 1);
      expect(threadStarted(store)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("reads the WAL's size as frames of the database's pages", () => {
    const { db, path } = database();
    db.pragma("wal_autocheckpoint = 0");
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    expect(walHasReached(path, 1, pageSize)).toBe(true);
    expect(walHasReached(path, 50, pageSize)).toBe(false);
    // One row of about a page per transaction: at least one new frame each.
    for (let i = 0; i < 60; i++) insert.run("v".repeat(pageSize));
    expect(walHasReached(path, 50, pageSize)).toBe(true);
    expect(walHasReached(join(path, "..", "absent.db"), 1, pageSize)).toBe(false);
    // A name the system refuses (ENAMETOOLONG): no answer, and no error after a committed write.
    expect(walHasReached(join(path, "..", "x".repeat(5000)), 1, pageSize)).toBe(false);
    db.close();
  });
});
