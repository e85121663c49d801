import { writev } from "node:fs";
import { redactBytes, redactSecrets } from "../util/redact.js";
import { collectYoungGarbage } from "../util/young-garbage.js";
import { quitOnClosedPipe, stderr, stdout, stdoutIsTTY, stdoutMade } from "./std-streams.js";

/** Where commands write; the entry point binds it to the process, tests to buffers. */
export interface Io {
  out(text: string): void;
  /**
   * One page of a long listing (`status --json`), in pieces of text or UTF-8 bytes written
   * together, after whatever was written before. The writing starts before this returns and the
   * promise settles once the page has left the process, so the caller can read the next page from
   * the store meanwhile. `tokenFree`: the store screened the page for token shapes as it was
   * written (`TaskJsonPage.tokenFree`), so only the environment's secret values are looked for.
   * Absent: `out`.
   */
  outPage?(pieces: readonly (string | Uint8Array)[], tokenFree: boolean): Promise<void>;
  err(text: string): void;
  isTTY: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A long listing's pages are Buffers outside V8's heap, which V8 does not collect before the
 * process ends: each would be fresh memory, 10,000 page faults for 40 MiB. Past GC_AFTER_PAGES,
 * the young generation is collected every GC_EVERY_PAGES written pages and the next pages reuse
 * the memory (docs/benchmarks.md).
 */
const GC_AFTER_PAGES = 12;
const GC_EVERY_PAGES = 4;

export function processIo(): Io {
  // The environment as the command started (fixpoint never changes its own): its secret values
  // are then listed once per command (and again if the config names more, setRedactedEnvNames),
  // not once per page printed.
  const env = { ...process.env };
  let pages: ((pieces: readonly Uint8Array[]) => Promise<void>) | null = null;
  let written = 0;
  return {
    // The last net for SPEC §13: nothing a command prints carries a secret (rows stored before
    // redaction existed, an error quoting a token), whatever the command forgot.
    out: (t) => stdout().write(redactSecrets(t, env)),
    outPage: (pieces, tokenFree) => {
      if (pages === null) {
        if (stdoutMade()) blockingStdout();
        pages = fdWriter(1, quitOnClosedPipe, blockingStdout);
      }
      const done = pages(
        pieces.map((p) => redactBytes(typeof p === "string" ? Buffer.from(p, "utf8") : p, tokenFree, env)),
      );
      written++;
      return written >= GC_AFTER_PAGES && written % GC_EVERY_PAGES === 0
        ? done.then(collectYoungGarbage)
        : done;
    },
    err: (t) => stderr().write(redactSecrets(t, env)),
    isTTY: stdoutIsTTY(),
    cwd: process.cwd(),
    env: process.env,
  };
}

/**
 * Node makes a pipe or socket stdout non-blocking when it makes process.stdout (std-streams.ts).
 * A write from the thread pool then ends after what the pipe holds (64 KiB), and each following
 * piece waits for the main thread, which is busy reading the next page: slower than writing from
 * the main thread. Blocking, one write from the pool sends a whole page. Called when the stream
 * exists before the first page, or when a write finds the descriptor non-blocking (a parent can
 * hand it over so). For the command's other writes to process.stdout (only `status --json` makes
 * stdout blocking) the output and its order are the same; what the reader has not taken yet waits
 * in the write instead of in Node's buffer. Node keeps the switch on the stream's handle; where it
 * has none, pages are still written, just in pieces.
 */
function blockingStdout(): void {
  const handle = (stdout() as { _handle?: { setBlocking?: (on: boolean) => number } })._handle;
  handle?.setBlocking?.(true);
}

/**
 * Writes to a descriptor from libuv's thread pool, in the order asked, each call's pieces whole
 * and together (one `writev`). A write starts as it is asked for when none is under way, so the
 * main thread can go on at once: at 100,000 tasks it reads the next page of `status --json` from
 * SQLite while the pool thread hands the previous one to the pipe's reader (docs/benchmarks.md).
 * A descriptor left non-blocking is retried after 1 ms when full, and `onWouldBlock` is called
 * the first time (to make it blocking). On an error `onError` is called once, and that write, the
 * ones waiting and every later one reject with it.
 */
export function fdWriter(
  fd: number,
  onError: (e: NodeJS.ErrnoException) => void = () => undefined,
  onWouldBlock: () => void = () => undefined,
): (pieces: readonly Uint8Array[]) => Promise<void> {
  type Job = { pieces: Uint8Array[]; resolve: () => void; reject: (e: Error) => void };
  const queue: Job[] = [];
  let busy = false;
  let failed: NodeJS.ErrnoException | null = null;
  let wouldBlock = false;
  const fail = (job: Job, e: NodeJS.ErrnoException) => {
    failed = e;
    onError(e);
    for (const j of [job, ...queue.splice(0)]) j.reject(e);
  };
  const next = (): void => {
    const job = queue.shift();
    busy = job !== undefined;
    if (job === undefined) return;
    const more = (): void =>
      writev(fd, job.pieces, (e, written) => {
        if (e?.code === "EAGAIN") {
          if (!wouldBlock) {
            wouldBlock = true;
            onWouldBlock();
          }
          return void setTimeout(more, 1);
        }
        if (e) return fail(job, e);
        job.pieces = unwritten(job.pieces, written);
        if (job.pieces.length > 0) return more();
        job.resolve();
        next();
      });
    more();
  };
  return (pieces) =>
    new Promise<void>((resolve, reject) => {
      if (failed !== null) return reject(failed);
      const nonEmpty = pieces.filter((p) => p.length > 0);
      if (nonEmpty.length === 0) return resolve();
      queue.push({ pieces: nonEmpty, resolve, reject });
      if (!busy) next();
    });
}

/** What is left of `pieces` once their first `written` bytes are out. */
function unwritten(pieces: Uint8Array[], written: number): Uint8Array[] {
  let skip = written;
  const out: Uint8Array[] = [];
  for (const p of pieces) {
    if (skip >= p.length) skip -= p.length;
    else {
      out.push(skip === 0 ? p : p.subarray(skip));
      skip = 0;
    }
  }
  return out;
}

/** Io.outPage, or `out` with the pieces as text where the Io has no page writer (tests' buffers). */
export function pageWriter(
  io: Io,
): (pieces: readonly (string | Uint8Array)[], tokenFree: boolean) => void | Promise<void> {
  if (io.outPage) return io.outPage.bind(io);
  const text = new TextDecoder();
  return (pieces) => io.out(pieces.map((p) => (typeof p === "string" ? p : text.decode(p))).join(""));
}

/** Indented for a person at a terminal, compact for scripts and pipes (10,000 tasks stay fast). */
export function printJson(io: Io, value: unknown): void {
  io.out(`${io.isTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}
