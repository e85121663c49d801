import { fstatSync } from "node:fs";

/**
 * process.stdout and process.stderr, made on first use. Node makes each on first access: for a
 * pipe or socket that loads `net` and the stream machinery and switches the descriptor to
 * non-blocking, about 8 ms of every command's start (docs/benchmarks.md). `status --json` writes
 * its pages to descriptor 1 directly (Io.outPage) and never needs the stream; a command that
 * prints through Io.out makes it then.
 */
const made = { stdout: false, stderr: false };

export function stdout(): NodeJS.WriteStream {
  if (!made.stdout) {
    made.stdout = true;
    quietOnClosedPipe(process.stdout);
  }
  return process.stdout;
}

export function stderr(): NodeJS.WriteStream {
  if (!made.stderr) {
    made.stderr = true;
    quietOnClosedPipe(process.stderr);
  }
  return process.stderr;
}

/** Whether stdout's stream exists yet (then Node has made descriptor 1 non-blocking if it is a pipe). */
export function stdoutMade(): boolean {
  return made.stdout;
}

/**
 * Whether stdout is a terminal, without making the stream when it is a pipe, a file or a
 * socket: only a character device can be a terminal (/dev/null is one too, and is asked).
 */
export function stdoutIsTTY(): boolean {
  if (!made.stdout) {
    try {
      if (!fstatSync(1).isCharacterDevice()) return false;
    } catch {
      // Descriptor 1 closed: the stream (a placeholder Node makes) answers.
    }
  }
  return Boolean(stdout().isTTY);
}

/**
 * A reader that stops early (`fixpoint status | head`) closes the pipe: the rest of the output
 * has nowhere to go and that is not an error. Ends the process quietly on EPIPE; any other error
 * is the caller's.
 */
export function quitOnClosedPipe(e: NodeJS.ErrnoException): void {
  if (e.code === "EPIPE") process.exit(0);
}

/** A closed pipe ends the process quietly (quitOnClosedPipe) instead of printing EPIPE's stack. */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    quitOnClosedPipe(e);
    throw e;
  });
}

/**
 * Exits once what was written to stdout and stderr has left the process. Explicitly, because an
 * agent abandoned on cancel (a scripted handler still awaiting a timer, say) must not keep a
 * finished command alive. A stream never made holds nothing to wait for.
 */
export function exitAfterFlush(code: number): void {
  const flush = (exists: boolean, stream: () => NodeJS.WriteStream, then: () => void) =>
    exists ? stream().write("", then) : then();
  flush(made.stdout, stdout, () => flush(made.stderr, stderr, () => process.exit(code)));
}
