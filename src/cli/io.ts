import { redactSecrets } from "../util/redact.js";

/** Where commands write; the entry point binds it to the process, tests to buffers. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  isTTY: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  return {
    // The last net for SPEC §13: nothing a command prints carries a secret (rows stored before
    // redaction existed, an error quoting a token), whatever the command forgot.
    out: (t) => process.stdout.write(redactSecrets(t)),
    err: (t) => process.stderr.write(redactSecrets(t)),
    isTTY: Boolean(process.stdout.isTTY),
    cwd: process.cwd(),
    env: process.env,
  };
}

/** Indented for a person at a terminal, compact for scripts and pipes (10,000 tasks stay fast). */
export function printJson(io: Io, value: unknown): void {
  io.out(`${io.isTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}
