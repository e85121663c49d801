/**
 * Running child processes. `run` resolves for every exit (non-zero, signal, timeout, cancel);
 * it rejects only when the executable cannot be spawned at all and `rejectOnSpawnError` is set.
 * The child runs in its own process group; timeout and cancel kill the whole group (SIGTERM,
 * then SIGKILL after a grace period) and the promise resolves only after the child is reaped,
 * so no zombie is left.
 */
export interface ProcessRunner {
  run(spec: ProcessSpec): Promise<ProcessResult>;
}

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. When absent stdin is closed at once. */
  input?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each complete stdout line (split on `\n` only). Must not throw. */
  onStdoutLine?: (line: string) => void;
  /** Keep at most this many bytes of each stream (the tail); default 10 MiB. */
  maxBuffer?: number;
  /** Grace between SIGTERM and SIGKILL; default 2000 ms. */
  killGraceMs?: number;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** Set when the process could not be started (ENOENT, EACCES). */
  spawnError?: string;
  durationMs: number;
  pid?: number;
}
