import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { CheckpointThreadData, CheckpointThreadMessage } from "./checkpoint-thread.js";
import type { SqliteDatabase } from "./connection.js";

/**
 * WAL checkpoints off the committing thread (issue 10). In WAL mode SQLite copies the log into the
 * database every 1,000 frames, on whichever connection's commit crosses the mark, with an fsync
 * of the log before and of the database after. For a worker that commits a stage or a claim every
 * few hundred microseconds, that copy was the largest part of each write on average (a claim:
 * 360 µs with it, 205 µs without, measured on a virtual disk). A store that keeps writing starts a
 * thread with its own connection that checkpoints every CHECKPOINT_EVERY_MS; its own commits then
 * checkpoint only when the log reaches BACKSTOP_FRAMES (the thread fell behind or died), so the
 * log stays bounded whatever happens to the thread. Durability is unchanged: the same syncs
 * happen, on another thread.
 */

/** SQLite's default: the committing connection checkpoints once the log holds this many frames. */
export const INLINE_FRAMES = 1000;
/** While the thread runs: the committing connection checkpoints only past this (64 MiB of log). */
export const BACKSTOP_FRAMES = 16_000;
export const CHECKPOINT_EVERY_MS = 100;
/** Write transactions a store makes before it starts the thread: a short command never does. */
export const WRITES_BEFORE_THREAD = 64;
/**
 * The WAL's size, in frames, a store waits for before it starts the thread: most of the way to
 * INLINE_FRAMES. Starting a thread costs 60–80 ms of CPU (a Node isolate and a connection), which
 * on a 2-core machine lands on the stages running meanwhile (stages 28–43 of a chain of no-op
 * stages took 2× as long). Only a store that writes enough to checkpoint soon gets paid back; a
 * run of a few dozen stages (about 10 frames each) never does (docs/benchmarks.md).
 */
export const FRAMES_BEFORE_THREAD = 800;
/** Past WRITES_BEFORE_THREAD, the WAL's size is looked at once every this many writes. */
export const WRITES_BETWEEN_LOOKS = 16;

/**
 * Whether the WAL beside the database at `path` holds, or has held, `frames` frames of
 * `pageSize` bytes: SQLite reuses the file from its start after a checkpoint without shrinking
 * it, so its size is the most the log has held since it was made. No WAL, or none that can be
 * looked at: false (it is asked after a write has committed, which must not fail because of it).
 */
export function walHasReached(path: string, frames: number, pageSize: number): boolean {
  try {
    const size = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    return size >= WAL_HEADER_BYTES + frames * (pageSize + FRAME_HEADER_BYTES);
  } catch {
    return false;
  }
}

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

export interface BackgroundCheckpoints {
  /** Ends the thread and closes its connection; the store's own checkpoints take over. */
  stop(): Promise<void>;
}

const NONE: BackgroundCheckpoints = { stop: async () => undefined };

/**
 * Starts the checkpoint thread for the database at `path`, whose committing connection is `db`.
 * When the thread cannot start (the compiled thread file is absent, as when running the
 * TypeScript sources) or its connection fails, nothing changes: `db` keeps checkpointing itself.
 */
export function startBackgroundCheckpoints(
  db: SqliteDatabase,
  path: string,
  opts: { threadUrl?: URL; everyMs?: number } = {},
): BackgroundCheckpoints {
  const url = opts.threadUrl ?? new URL("./checkpoint-thread.js", import.meta.url);
  const data: CheckpointThreadData = { path, everyMs: opts.everyMs ?? CHECKPOINT_EVERY_MS };
  let thread: Worker;
  try {
    thread = new Worker(url, { workerData: data });
  } catch {
    return NONE;
  }
  // A finished command exits without waiting for this thread.
  thread.unref();
  let alive = true;
  const setFrames = (frames: number) => {
    try {
      if (db.open) db.pragma(`wal_autocheckpoint = ${frames}`);
    } catch {
      // The store is closing: nothing to hand back.
    }
  };
  thread.on("message", (msg: CheckpointThreadMessage) => {
    if (msg === "ready") setFrames(BACKSTOP_FRAMES);
  });
  const ended = () => {
    alive = false;
    setFrames(INLINE_FRAMES);
  };
  thread.once("error", ended);
  thread.once("exit", ended);
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (!alive) return resolve();
        // Not unref'd: it keeps the process alive until the thread has closed its connection.
        const timer = setTimeout(() => {
          void thread.terminate();
          resolve();
        }, 2000);
        thread.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        thread.postMessage("stop" satisfies CheckpointThreadMessage);
      }),
  };
}
