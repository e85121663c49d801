import { closeSync, openSync, readSync } from "node:fs";
import type { GroupScope } from "../domain/process.js";
import { errorMessage } from "../errors.js";
import { groupAlive } from "./process-group.js";

/**
 * Which process groups this process started and has not seen end, so that (1) the worker running
 * a task can record them in the store (a worker that takes the task over after this one died
 * kills what is left of them), and (2) this process kills them when it exits — by signal too —
 * so an agent never outlives its worker unattended.
 *
 * The process runner reports every group it starts and reaps, with the scope its caller passed
 * (ProcessSpec.groups: the task's, for its agents and gates).
 */
const live = new Set<number>();
let exitHookInstalled = false;

/** Room for /proc/<pid>/stat: 52 fields, a command name of at most 64 bytes (TASK_COMM_LEN 16 today). */
const STAT_BYTES = 2048;
let statBuffer: Buffer | null = null;

/**
 * The leader's start time (field 22 of /proc/<pid>/stat, clock ticks since boot); null without
 * /proc. Read with one read into a buffer kept for it: `readFileSync` reads a /proc file, whose
 * size reads as 0, in growing chunks, which cost 50 µs instead of 10 on the benchmark machine.
 * Asked at a takeover, and when an agent starts if its starter could not tell its start time.
 */
export function processStartTicks(pid: number): number | null {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/stat`, "r");
    statBuffer ??= Buffer.allocUnsafe(STAT_BYTES);
    const n = readSync(fd, statBuffer, 0, STAT_BYTES, 0);
    const stat = statBuffer.toString("latin1", 0, n);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Called by the process runner right after it spawned a group leader; `startTicks` when the
 * starter knew the leader's start time (else it is read from /proc).
 */
export function groupStarted(pgid: number, scope?: GroupScope, startTicks?: number): void {
  live.add(pgid);
  installExitHook();
  if (!scope) return;
  try {
    scope.started(pgid, startTicks ?? processStartTicks(pgid));
  } catch (e) {
    process.emitWarning(`recording process group ${pgid} failed: ${errorMessage(e)}`);
  }
}

/**
 * Called by the process runner once the group's leader has been reaped. A group whose members
 * outlive the leader (a background process the agent left behind) stays live and recorded.
 */
export function groupEnded(pgid: number, scope?: GroupScope): void {
  if (groupAlive(pgid)) return;
  live.delete(pgid);
  if (!scope) return;
  try {
    scope.ended(pgid);
  } catch (e) {
    process.emitWarning(`clearing process group ${pgid} failed: ${errorMessage(e)}`);
  }
}

/** The groups this process started that are still running (or not yet reaped). */
export function liveGroups(): number[] {
  return [...live];
}

/** Sends `signal` to every live group at once (synchronously, so it works in an exit handler). */
export function signalLiveGroups(signal: NodeJS.Signals): void {
  for (const pgid of live) {
    try {
      process.kill(-pgid, signal);
    } catch {
      // ESRCH: already gone.
    }
  }
}

/**
 * On exit — however it comes about, including a handled SIGTERM/SIGINT/SIGHUP that ends the
 * process — SIGKILL every group still live: its worker is going away and nobody would reap it.
 * (SIGKILL of the worker itself runs no code at all; the next worker's takeover handles that.)
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => signalLiveGroups("SIGKILL"));
}
