import { redactSecrets, redactSecretValues } from "../util/redact.js";

/** Where commands write; the entry point binds it to the process, tests to buffers. */
export interface Io {
  out(text: string): void;
  /**
   * `out` for text the store screened for token shapes as it was written (`TaskJsonPage.tokenFree`):
   * only the environment's secret values are hidden. Absent: `out`.
   */
  outTokenFree?(text: string): void;
  /**
   * Resolves once what `out` wrote has left the process's buffer (or the stream closed), so a
   * command writing megabytes page by page holds one page, not all of them. Absent: no wait.
   */
  drained?(): Promise<void>;
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
  return {
    // The last net for SPEC §13: nothing a command prints carries a secret (rows stored before
    // redaction existed, an error quoting a token), whatever the command forgot.
    out: (t) => process.stdout.write(redactSecrets(t, env)),
    // Scanning 40 MB for token shapes was a fifth of `status --json` at 100,000 tasks (issue 10).
    outTokenFree: (t) => process.stdout.write(redactSecretValues(t, env)),
    drained: () => drained(process.stdout),
    err: (t) => process.stderr.write(redactSecrets(t, env)),
    isTTY: Boolean(process.stdout.isTTY),
    cwd: process.cwd(),
    env: process.env,
  };
}

/**
 * Resolves when `stream` has no more buffered than its high-water mark. A write error (a closed
 * pipe) is main.ts's to handle; a closed stream ends the wait too.
 */
export function drained(stream: NodeJS.WritableStream & { writableNeedDrain: boolean }): Promise<void> {
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}

/** Indented for a person at a terminal, compact for scripts and pipes (10,000 tasks stay fast). */
export function printJson(io: Io, value: unknown): void {
  io.out(`${io.isTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}
