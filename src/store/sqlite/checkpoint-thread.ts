/**
 * The body of the checkpoint thread (see background-checkpoints.ts): its own connection to the
 * store's file, copying the WAL into the database every `everyMs`, so the thread that commits
 * stages and claims never waits for that copy and its two fsyncs. Runs only inside a worker thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { sqliteAddonPath } from "./native-addon.js";

export interface CheckpointThreadData {
  path: string;
  everyMs: number;
}

/** Posted once the connection is open; "stop" (to the thread) closes it and ends the thread. */
export type CheckpointThreadMessage = "ready" | "stop";

function main(): void {
  const port = parentPort;
  if (port === null) throw new Error("checkpoint-thread.js runs only as a worker thread");
  const { path, everyMs } = workerData as CheckpointThreadData;
  const db = new Database(path, { fileMustExist: true, nativeBinding: sqliteAddonPath() });
  // A checkpoint syncs the WAL before copying it and the database after: as the store does.
  db.pragma("synchronous = NORMAL");
  const timer = setInterval(() => {
    try {
      // PASSIVE: copies what it can without waiting for readers or writers, and returns at once
      // when another connection is checkpointing. With nothing new in the WAL it writes nothing.
      db.pragma("wal_checkpoint(PASSIVE)");
    } catch {
      // Busy or a transient I/O error: the next tick tries again, and the store's own
      // automatic checkpoint still bounds the WAL.
    }
  }, everyMs);
  port.on("message", (msg: CheckpointThreadMessage) => {
    if (msg !== "stop") return;
    clearInterval(timer);
    db.close();
    port.close();
  });
  port.postMessage("ready" satisfies CheckpointThreadMessage);
}

main();
