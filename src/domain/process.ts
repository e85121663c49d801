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
  /** Told when the child's process group starts and ends (the task's agents, recorded by its worker). */
  groups?: GroupScope;
}

/**
 * Hears about the process groups started for one task (src/engine/agent-groups.ts records them
 * in the store, so a worker that takes the task over kills what its dead predecessor left).
 * Passed down with each request rather than found from the async context: an AsyncLocalStorage
 * turns on Node 20's promise hooks, about a tenth of a no-op stage (issue 10).
 */
export interface GroupScope {
  /** A group was started. Must not throw. */
  started(pgid: number, startTicks: number | null): void;
  /** A group ended (its leader was reaped and no member is left). Must not throw. */
  ended(pgid: number): void;
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
