import { type ChildProcess, spawn } from "node:child_process";
import { runAfterSpawnJobs } from "./after-spawn.js";
import type { ChildEvents, ChildSpec } from "./child-spec.js";
import { nativeSpawner, startNative } from "./native-spawn.js";

/**
 * The native starter children are started with, given FIXPOINT_SPAWN_HELPER: null where it is
 * not built, or when the setting asks for a fork by Node (0) or the helper (1).
 */
export function nativeStarter(setting: string | undefined): ReturnType<typeof nativeSpawner> {
  return setting === "0" || setting === "1" ? null : nativeSpawner();
}

/** Children started here before the helper may be: a command that runs fewer never pays for it. */
export const STARTS_BEFORE_HELPER = 3;
/** The median spawn call here (ms) from which the helper is used. */
export const HELPER_ABOVE_MS = 4;

/** Whether to start the helper, given the last spawn calls' durations here and the setting. */
export function wantsHelper(recentMs: readonly number[], setting: string | undefined): boolean {
  if (setting === "0" || recentMs.length < STARTS_BEFORE_HELPER) return false;
  if (setting === "1") return true;
  const sorted = [...recentMs].sort((a, b) => a - b);
  return (sorted[Math.floor(sorted.length / 2)] ?? 0) >= HELPER_ABOVE_MS;
}

/** The durations of the last spawn calls made here. */
const recent: number[] = [];
let helper: Helper | null = null;
/** Set when the helper died before it was ready: every child is then started here. */
let noHelper = false;

/** The pid of the helper when it starts this process's children, else null. */
export function spawnHelperPid(): number | null {
  return helper?.ready === true ? helper.pid : null;
}

/**
 * Starts child processes: with posix_spawn where fixpoint's native starter is built (Linux,
 * native-spawn.ts), else here, or from a small helper process when a fork from here is slow.
 *
 * Node starts a child with fork(), which copies the page tables of the whole parent: its cost
 * grows with the parent's memory. On the benchmark machine the spawn call took 2.3 ms in a bare
 * Node, 6-8 ms in a worker holding 100 MB and 22 ms in one holding 260 MB, while the event loop
 * stood still (docs/benchmarks.md). A worker runs an agent and git commands every stage, and its
 * registry grows. The helper is a bare Node with nothing loaded but child_process: it starts the
 * children and relays their output over its IPC channel, at a cost that does not depend on the
 * size of this process (the relay adds about 1.5 ms per child, so it pays only above that).
 *
 * - The helper starts once STARTS_BEFORE_HELPER children have been started here and the median
 *   of the last ones' spawn calls took HELPER_ABOVE_MS or more. Until it says it is ready,
 *   children are started here: no command waits for it.
 * - Children keep their real pids (process groups, kills and the recorded agent groups work as
 *   before); only the fork happens in the helper.
 * - The helper ignores SIGINT, SIGTERM and SIGHUP (Ctrl-C reaches this process, which stops the
 *   children itself) and exits when this process does (its IPC channel closes).
 * - FIXPOINT_SPAWN_HELPER=0 starts every child here with Node's spawn; =1 uses the helper whatever
 *   the spawns cost. Unset, children start with posix_spawn when the native starter is built: it
 *   costs about 1 ms at any size of this process, less than the helper's relay alone.
 */
export function startChild(spec: ChildSpec, events: ChildEvents): void {
  start(spec, events);
  // The child is starting up: the worker's deferred small writes go now (after-spawn.ts).
  runAfterSpawnJobs();
}

function start(spec: ChildSpec, events: ChildEvents): void {
  const stoppable = withLimits(spec, events);
  const setting = process.env.FIXPOINT_SPAWN_HELPER;
  const native = nativeStarter(setting);
  if (native !== null) {
    startNative(native, spec, stoppable);
    return;
  }
  if (helper?.ready === true) {
    helper.start(spec, stoppable);
    return;
  }
  if (helper === null && !noHelper && wantsHelper(recent, setting)) {
    helper = Helper.start();
    noHelper = helper === null;
  }
  const t = performance.now();
  startHere(spec, stoppable);
  recent.push(performance.now() - t);
  if (recent.length > STARTS_BEFORE_HELPER) recent.shift();
}

/** Applies `timeout` and `signal`: SIGTERM to the child once it has a pid. */
function withLimits(spec: ChildSpec, events: ChildEvents): ChildEvents {
  if (spec.timeout === undefined && spec.signal === undefined) return events;
  let pid: number | undefined;
  let stop: "timeout" | "abort" | null = null;
  let done = false;
  const kill = (): void => {
    stop ??= spec.signal?.aborted === true ? "abort" : "timeout";
    if (pid === undefined || done) return;
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // ESRCH: it has just exited.
    }
  };
  const timer = spec.timeout !== undefined && spec.timeout > 0 ? setTimeout(kill, spec.timeout) : undefined;
  timer?.unref();
  spec.signal?.addEventListener("abort", kill, { once: true });
  const end = (): void => {
    done = true;
    clearTimeout(timer);
    spec.signal?.removeEventListener("abort", kill);
  };
  return {
    spawned: (p, startTicks) => {
      pid = p;
      events.spawned(p, startTicks);
      if (stop !== null || spec.signal?.aborted) kill();
    },
    failed: (e) => {
      end();
      events.failed(e);
    },
    stdout: events.stdout,
    stderr: events.stderr,
    closed: (code, signal) => {
      end();
      events.closed(code, signal, stop);
    },
  };
}

/** Starts the child in this process. */
function startHere(spec: ChildSpec, events: ChildEvents): void {
  let child: ChildProcess;
  try {
    child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: spec.detached,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
  } catch (e) {
    // Synchronous failures: invalid arguments, a NUL byte in a path.
    events.failed(e as NodeJS.ErrnoException);
    return;
  }
  const pid = child.pid;
  child.on("error", (err: NodeJS.ErrnoException) => {
    // Without a pid the executable could not be started; later errors (a failed kill) leave
    // the close event to report the end.
    if (pid === undefined) events.failed(err);
  });
  if (pid === undefined) return;
  events.spawned(pid);
  child.stdout?.on("data", (chunk: Buffer) => events.stdout(chunk));
  child.stderr?.on("data", (chunk: Buffer) => events.stderr(chunk));
  // EPIPE/ECONNRESET when the child exits without reading its input: not our failure.
  child.stdin?.on("error", () => {});
  child.stdin?.end(spec.input ?? "");
  child.on("close", (code, signal) => events.closed(code, signal, null));
}

/**
 * The helper's program, run with `node -e`: the same in the sources, the compiled library and the
 * bundled CLI, with nothing to resolve. It answers each `spawn` message with `spawned` (or
 * `failed`), then the child's output as `out`/`err` chunks, then `closed`; the IPC channel keeps
 * them in order. (It requires "child_process" without the "node:" prefix: the CLI's bundler makes
 * every `require("node:…")` of the bundle lazy, and would rewrite this text too.)
 */
const HELPER_SOURCE = `"use strict";
const { spawn } = require("child_process");
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => {});
process.on("disconnect", () => process.exit(0));
const send = (m) => { if (process.connected) process.send(m); };
const failure = (id, e) => send({ t: "failed", id, code: e.code ?? null, errno: e.errno ?? null, syscall: e.syscall ?? null, path: e.path ?? null, message: String(e.message) });
process.on("message", (m) => {
  if (m === null || typeof m !== "object" || m.t !== "spawn") return;
  const id = m.id;
  let child;
  try {
    child = spawn(m.command, m.args, { cwd: m.cwd, env: m.env, detached: m.detached, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
  } catch (e) {
    failure(id, e);
    return;
  }
  const pid = child.pid;
  child.on("error", (e) => { if (pid === undefined) failure(id, e); });
  if (pid === undefined) return;
  send({ t: "spawned", id, pid });
  child.stdout.on("data", (data) => send({ t: "out", id, data }));
  child.stderr.on("data", (data) => send({ t: "err", id, data }));
  child.stdin.on("error", () => {});
  child.stdin.end(m.input ?? "");
  child.on("close", (code, signal) => send({ t: "closed", id, code, signal }));
});
send({ t: "ready" });
`;

type HelperMessage =
  | { t: "ready" }
  | { t: "spawned"; id: number; pid: number }
  | {
      t: "failed";
      id: number;
      code: string | null;
      errno: number | null;
      syscall: string | null;
      path: string | null;
      message: string;
    }
  | { t: "out" | "err"; id: number; data: Uint8Array }
  | { t: "closed"; id: number; code: number | null; signal: NodeJS.Signals | null };

interface InFlight {
  spec: ChildSpec;
  events: ChildEvents;
  started: boolean;
}

class Helper {
  ready = false;
  private nextId = 1;
  private readonly inFlight = new Map<number, InFlight>();

  private constructor(private readonly proc: ChildProcess) {}

  get pid(): number | null {
    return this.proc.pid ?? null;
  }

  static start(): Helper | null {
    let proc: ChildProcess;
    try {
      proc = spawn(process.execPath, ["-e", HELPER_SOURCE], {
        stdio: ["ignore", "ignore", "inherit", "ipc"],
        serialization: "advanced",
        env: process.env,
        windowsHide: true,
      });
    } catch {
      return null;
    }
    const h = new Helper(proc);
    proc.on("message", (m: HelperMessage) => h.receive(m));
    proc.on("error", () => h.lost());
    proc.on("exit", () => h.lost());
    // An idle helper keeps nothing alive; while children run, its channel does (see hold).
    proc.unref();
    proc.channel?.unref();
    return h;
  }

  start(spec: ChildSpec, events: ChildEvents): void {
    const id = this.nextId++;
    this.inFlight.set(id, { spec, events, started: false });
    if (this.inFlight.size === 1) this.proc.channel?.ref();
    this.proc.send({
      t: "spawn",
      id,
      command: spec.command,
      args: spec.args,
      cwd: spec.cwd,
      env: spec.env,
      detached: spec.detached,
      input: spec.input,
    });
  }

  private receive(m: HelperMessage): void {
    if (m.t === "ready") {
      this.ready = true;
      return;
    }
    const f = this.inFlight.get(m.id);
    if (f === undefined) return;
    switch (m.t) {
      case "spawned":
        f.started = true;
        f.events.spawned(m.pid);
        return;
      case "out":
        f.events.stdout(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
        return;
      case "err":
        f.events.stderr(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
        return;
      case "failed": {
        this.settle(m.id);
        const err: NodeJS.ErrnoException = Object.assign(new Error(m.message), {
          ...(m.code === null ? {} : { code: m.code }),
          ...(m.errno === null ? {} : { errno: m.errno }),
          ...(m.syscall === null ? {} : { syscall: m.syscall }),
          ...(m.path === null ? {} : { path: m.path }),
        });
        f.events.failed(err);
        return;
      }
      case "closed":
        this.settle(m.id);
        f.events.closed(m.code, m.signal, null);
    }
  }

  private settle(id: number): void {
    this.inFlight.delete(id);
    if (this.inFlight.size === 0) this.proc.channel?.unref();
  }

  /**
   * The helper died (killed from outside). A child it was asked to start is not started again
   * here (it may have started, unreported): it is reported as not started; a running child's
   * output can no longer reach us: it is reported as ended, with a line saying why. The next
   * spawns are started here, and a new helper when they are slow again.
   */
  private lost(): void {
    if (helper === this) {
      helper = null;
      recent.length = 0;
      // One that died before it was ready will not do better next time.
      if (!this.ready) noHelper = true;
    }
    this.ready = false;
    const pending = [...this.inFlight.values()];
    this.inFlight.clear();
    const why = "the helper process that starts commands exited";
    for (const f of pending) {
      if (!f.started) {
        f.events.failed(Object.assign(new Error(why), { code: "EHELPER" }));
        continue;
      }
      f.events.stderr(Buffer.from(`fixpoint: ${why}\n`));
      f.events.closed(null, null, null);
    }
  }
}
