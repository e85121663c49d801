import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { isBusyError, toStoreError } from "./errors.js";
import { sqliteAddonPath } from "./native-addon.js";

export type SqliteDatabase = Database.Database;

/**
 * Opens (creating if needed) the database file owner-only, then sets the connection up:
 * - WAL, so readers (`status`) never block the worker writing a stage;
 * - synchronous=NORMAL: in WAL mode a transaction is still atomic and survives a process crash;
 *   only a power loss can drop the last commits. That trade keeps a stage commit far below 1 ms,
 *   where FULL would fsync on every commit;
 * - foreign keys on, so an event or stage can never point at a task that does not exist.
 *
 * The file is created before SQLite opens it because SQLite would create it with the umask's
 * permissions (usually world-readable); its `-wal` and `-shm` files copy the file's mode.
 */
export function openDatabase(path: string, busyTimeoutMs: number): SqliteDatabase {
  const deadline = Date.now() + Math.max(0, busyTimeoutMs);
  for (let attempt = 0; ; attempt++) {
    let db: SqliteDatabase | undefined;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      closeSync(openSync(path, "a", 0o600));
      db = new Database(path, { timeout: busyTimeoutMs, nativeBinding: sqliteAddonPath() });
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("foreign_keys = ON");
      return db;
    } catch (e) {
      db?.close();
      // SQLite answers SQLITE_BUSY without calling its busy handler on some setup paths (a
      // second process switching a fresh file to WAL, or reading a WAL index another is
      // rebuilding), so setup retries on its own until the same timeout has passed.
      if (isBusyError(e) && Date.now() < deadline) {
        sleepSync(Math.min(5 * 2 ** Math.min(attempt, 5), Math.max(1, deadline - Date.now())));
        continue;
      }
      throw toStoreError(e, path, busyTimeoutMs, "opening the database");
    }
  }
}

/** Opening is synchronous throughout (better-sqlite3), so the wait between attempts is too. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
