import { Socket } from "node:net";
import { constants } from "node:os";
import type { ChildEvents, ChildSpec } from "./child-spec.js";
import { loadNativeAddon, nativeAddonPath } from "./native-addon.js";

/**
 * Starting children with posix_spawn (native/spawn.cc, built by `npm install` on Linux into
 * build/Release/fixpoint_spawn.node). Node's spawn forks the whole parent, whose page tables cost
 * more the more memory the worker holds; posix_spawn shares them until the child execs, so `true`
 * with its stdio starts in about 1-2 ms at any size (docs/benchmarks.md). The child gets
 * what Node's spawn gives it: stdin, stdout and stderr as sockets, the environment and working
 * folder asked for, the command looked up in that environment's PATH, default signal handlers
 * and nothing blocked, and a process group of its own when `detached`. Unlike Node's spawn, it
 * gets no other descriptor this process inherited without close-on-exec (glibc 2.34 and later).
 */
interface Addon {
  spawn(
    file: string,
    argv: string[],
    env: string[],
    cwd: string,
    newGroup: boolean,
    onExit: (code: number, signal: number) => void,
    input: Buffer,
  ): [pid: number, stdin: number, stdout: number, stderr: number, written: number, startTicks?: number];
  /** kill(-pgid, 0)'s errno, 0 when it succeeded; absent from a starter built before it. */
  probeGroup?(pgid: number): number;
}

/** Where `npm install` puts the starter (native-addon.ts). */
export const NATIVE_SPAWNER_PATH = nativeAddonPath("fixpoint_spawn");

let loaded: Addon | null | undefined;

/** The native starter, or null where it is not built (or not Linux): children are then forked. */
export function nativeSpawner(): Addon | null {
  if (loaded === undefined) loaded = loadNativeAddon<Addon>("fixpoint_spawn");
  return loaded;
}

const signalNames = new Map<number, NodeJS.Signals>(
  Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]),
);

/** Node's spawn refuses these too: a C string would end at the NUL and run something else. */
const hasNul = (s: string): boolean => s.includes("\0");

function spawnError(spec: ChildSpec, e: unknown): NodeJS.ErrnoException {
  const err = (e instanceof Error ? e : new Error(String(e))) as NodeJS.ErrnoException;
  err.syscall = `spawn ${spec.command}`;
  err.path = spec.command;
  return err;
}

/** Starts `spec` with posix_spawn; `events` as spawner.ts's startChild documents them. */
export function startNative(addon: Addon, spec: ChildSpec, events: ChildEvents): void {
  const env: string[] = [];
  for (const [k, v] of Object.entries(spec.env)) if (v !== undefined) env.push(`${k}=${v}`);
  const strings = [spec.command, spec.cwd, ...spec.args, ...env];
  let started: ReturnType<Addon["spawn"]>;
  const input = Buffer.from(spec.input ?? "", "utf8");
  try {
    if (strings.some(hasNul))
      throw Object.assign(new TypeError(`spawn ${spec.command}: an argument or variable holds a NUL byte`), {
        code: "ERR_INVALID_ARG_VALUE",
      });
    started = addon.spawn(
      spec.command,
      [spec.command, ...spec.args],
      env,
      spec.cwd,
      spec.detached,
      (code, sig) => exited(code, sig),
      input,
    );
  } catch (e) {
    // As Node reports a program that cannot start: after startChild has returned.
    const err = spawnError(spec, e);
    process.nextTick(() => events.failed(err));
    return;
  }
  const [pid, stdinFd, stdoutFd, stderrFd, written, startTicks] = started;
  let open = 3;
  let code: number | null = null;
  let signal: NodeJS.Signals | null = null;
  const closeOne = (): void => {
    if (--open === 0) events.closed(code, signal, null);
  };
  function exited(c: number, sig: number): void {
    code = sig === 0 ? c : null;
    signal = sig === 0 ? null : (signalNames.get(sig) ?? "SIGKILL");
    closeOne();
  }
  // A starter built before it knew the start time says nothing (undefined); -1: not known exactly.
  events.spawned(pid, startTicks === undefined || startTicks < 0 ? undefined : startTicks);
  // The starter wrote what the socket took at once, and closed stdin when that was all of it or
  // the child had closed its end.
  if (stdinFd >= 0) {
    const stdin = new Socket({ fd: stdinFd, readable: false, writable: true });
    // EPIPE/ECONNRESET when the child exits without reading its input: not our failure.
    stdin.on("error", () => {});
    stdin.end(input.subarray(written));
  }
  for (const [fd, on] of [
    [stdoutFd, events.stdout],
    [stderrFd, events.stderr],
  ] as const) {
    const s = new Socket({ fd, readable: true, writable: false });
    s.on("data", (chunk: Buffer) => on(chunk));
    s.on("error", () => {});
    s.on("close", closeOne);
  }
}
