import { writev } from "node:fs";
import { redactBytes, redactSecrets } from "../util/redact.js";

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

export function processIo(): Io {
  // The environment as the command started (fixpoint never changes its own): its secret values
  // are then listed once per command (and again if the config names more, setRedactedEnvNames),
  // not once per page printed.
  const env = { ...process.env };
  let pages: ((pieces: readonly Uint8Array[]) => Promise<void>) | null = null;
  return {
    // The last net for SPEC §13: nothing a command prints carries a secret (rows stored before
    // redaction existed, an error quoting a token), whatever the command forgot.
    out: (t) => process.stdout.write(redactSecrets(t, env)),
    outPage: (pieces, tokenFree) => {
      if (pages === null) {
        blockingStdout();
        pages = fdWriter(1, quitOnClosedPipe);
      }
      return pages(
        pieces.map((p) => redactBytes(typeof p === "string" ? Buffer.from(p, "utf8") : p, tokenFree, env)),
      );
    },
    err: (t) => process.stderr.write(redactSecrets(t, env)),
    isTTY: Boolean(process.stdout.isTTY),
    cwd: process.cwd(),
    env: process.env,
  };
}

/**
 * Node opens a pipe or socket stdout non-blocking. A write from the thread pool then ends after
 * what the pipe holds (64 KiB), and each following piece waits for the main thread, which is busy
 * reading the next page: slower than writing from the main thread. Blocking, one write from the
 * pool sends a whole page. For the command's other writes to process.stdout (only `status
 * --json` makes stdout blocking) the output and its order are the same; what the reader has not
 * taken yet waits in the write instead of in Node's buffer. Node keeps the switch on the
 * stream's handle; where it has none, pages are still written, just in pieces.
 */
function blockingStdout(): void {
  const handle = (process.stdout as { _handle?: { setBlocking?: (on: boolean) => number } })._handle;
  handle?.setBlocking?.(true);
}

/**
 * A reader that stops early (`fixpoint status | head`) closes the pipe: the rest of the output
 * has nowhere to go and that is not an error. Ends the process quietly on EPIPE; any other error
 * is the caller's.
 */
export function quitOnClosedPipe(e: NodeJS.ErrnoException): void {
  if (e.code === "EPIPE") process.exit(0);
}

/**
 * Writes to a descriptor from libuv's thread pool, in the order asked, each call's pieces whole
 * and together (one `writev`). A write starts as it is asked for when none is under way, so the
 * main thread can go on at once: at 100,000 tasks it reads the next page of `status --json` from
 * SQLite while the pool thread hands the previous one to the pipe's reader (docs/benchmarks.md).
 * A descriptor left non-blocking is retried after 1 ms when full. On an error `onError` is
 * called once, and that write, the ones waiting and every later one reject with it.
 */
export function fdWriter(
  fd: number,
  onError: (e: NodeJS.ErrnoException) => void = () => undefined,
): (pieces: readonly Uint8Array[]) => Promise<void> {
  type Job = { pieces: Uint8Array[]; resolve: () => void; reject: (e: Error) => void };
  const queue: Job[] = [];
  let busy = false;
  let failed: NodeJS.ErrnoException | null = null;
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
        if (e?.code === "EAGAIN") return void setTimeout(more, 1);
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
