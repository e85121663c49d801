/**
 * A child process to start, and what the starter tells about it: one shape for every way of
 * starting one (spawner.ts: posix_spawn by native-spawn.ts, Node's spawn, or the helper process).
 */
export interface ChildSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The child leads a process group of its own. */
  detached: boolean;
  /** Written to stdin, which is then closed (closed at once when absent). */
  input?: string;
  /** SIGTERM to the child after this many ms (process groups are the caller's to stop). */
  timeout?: number;
  /** SIGTERM to the child when aborted. */
  signal?: AbortSignal;
}

export interface ChildEvents {
  /**
   * The child runs, with this pid. `startTicks`: when it started, in clock ticks since boot (as
   * field 22 of /proc/<pid>/stat), when the starter knows it exactly; else undefined.
   */
  spawned(pid: number, startTicks?: number): void;
  /** The child could not be started (ENOENT, EACCES, a missing cwd); nothing else follows. */
  failed(err: NodeJS.ErrnoException): void;
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /**
   * The child was reaped and its pipes are closed; the last event. `stopped` says why the spawner
   * sent it SIGTERM (the spec's `timeout` or `signal`), null when it did not.
   */
  closed(code: number | null, signal: NodeJS.Signals | null, stopped: "timeout" | "abort" | null): void;
}
