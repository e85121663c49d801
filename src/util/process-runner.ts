import { existsSync } from "node:fs";
import type { ProcessResult, ProcessRunner, ProcessSpec } from "../domain/process.js";
import { groupEnded, groupStarted } from "./agent-groups.js";
import { LineSplitter } from "./line-splitter.js";
import { GroupKiller } from "./process-group.js";
import { startChild } from "./spawner.js";

const DEFAULT_MAX_BUFFER = 10 * 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 2000;

/** The real process runner: one process group per child, started by src/util/spawner.ts. */
export function createProcessRunner(): ProcessRunner {
  return { run: runProcess };
}

/** Keeps the last `max` bytes written to it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.max;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  toString(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

function describeSpawnError(err: NodeJS.ErrnoException, spec: ProcessSpec): string {
  if (err.code === "ENOENT") {
    // Node reports a missing cwd as ENOENT too; say which one it was.
    return existsSync(spec.cwd) ? "not found" : `working directory ${spec.cwd} does not exist`;
  }
  if (err.code === "EACCES") return "permission denied";
  return err.message;
}

type Outcome = Pick<ProcessResult, "exitCode" | "signal" | "stdout" | "stderr" | "spawnError">;

const NOT_STARTED: Outcome = { exitCode: null, signal: null, stdout: "", stderr: "" };

function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  return new Promise((resolve) => watch(spec, Date.now(), resolve));
}

function watch(spec: ProcessSpec, started: number, resolve: (r: ProcessResult) => void): void {
  const maxBuffer = spec.maxBuffer ?? DEFAULT_MAX_BUFFER;
  const stdout = new TailBuffer(maxBuffer);
  const stderr = new TailBuffer(maxBuffer);
  const lines = spec.onStdoutLine ? new LineSplitter(spec.onStdoutLine) : undefined;
  const graceMs = spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  let pid: number | undefined;
  let killer: GroupKiller | undefined;
  /** A timeout or cancel came before the child's pid: kill the group as soon as it has one. */
  let killWanted = false;
  let timedOut = false;
  let cancelled = false;
  let settled = false;
  let timer: NodeJS.Timeout | undefined;

  const kill = (): void => {
    killWanted = true;
    killer?.kill();
  };
  const onAbort = (): void => {
    cancelled = true;
    kill();
  };
  const finish = (outcome: Outcome): void => {
    if (settled) return;
    settled = true;
    if (pid !== undefined) groupEnded(pid, spec.groups);
    clearTimeout(timer);
    spec.signal?.removeEventListener("abort", onAbort);
    killer?.dispose();
    resolve({ ...outcome, timedOut, cancelled, pid, durationMs: Date.now() - started });
  };

  if (spec.timeoutMs !== undefined && spec.timeoutMs > 0) {
    timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.timeoutMs);
  }
  startChild(
    {
      command: spec.command,
      args: spec.args,
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      detached: true,
      input: spec.input,
    },
    {
      spawned: (p, startTicks) => {
        // The child leads its own process group, so the whole tree can be killed.
        pid = p;
        killer = new GroupKiller(p, graceMs);
        groupStarted(p, spec.groups, startTicks);
        if (killWanted) killer.kill();
      },
      failed: (err) => finish({ ...NOT_STARTED, spawnError: describeSpawnError(err, spec) }),
      stdout: (chunk) => {
        stdout.push(chunk);
        lines?.push(chunk);
      },
      stderr: (chunk) => stderr.push(chunk),
      // After the child was reaped and its pipes closed.
      closed: (exitCode, signal) => {
        lines?.end();
        const outcome: Outcome = { exitCode, signal, stdout: stdout.toString(), stderr: stderr.toString() };
        if (!killer?.killing) return finish(outcome);
        // After a kill, wait until no member of the group runs (escalating to SIGKILL when needed).
        const done = (): void => finish(outcome);
        killer.gone().then(done, done);
      },
    },
  );
  if (settled) return;
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener("abort", onAbort, { once: true });
}
