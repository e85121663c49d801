import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage } from "../errors.js";
import { nativeSpawner } from "./native-spawn.js";

const POLL_MS = 50;
/** How long to wait for SIGKILLed processes to vanish before giving up (state D cannot be helped). */
const AFTER_SIGKILL_MS = 1000;

/** Whether process `pid` runs (EPERM: one we may not signal does). Zombies count. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether any process of the group is still running. Zombies do not count: where PID 1 reaps
 * orphans lazily (some containers) a killed grandchild lingers as a zombie for seconds, and it
 * runs no code. Without /proc (macOS) any member, zombie or not, counts.
 */
export function groupAlive(pgid: number): boolean {
  // One syscall answers the common case, a group with no member at all (not even a zombie).
  // Scanning /proc costs milliseconds on a busy machine, and it runs after every agent and git call.
  if (!anyMember(pgid)) return false;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return anyMember(pgid);
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

/**
 * Whether some process, zombies included, is in the group (EPERM: one we may not signal is).
 * It is asked after every agent, gate and git command ends, and the usual answer is "no such
 * group": the native starter's probe says so as a number; process.kill throws it as an error,
 * which costs a third without a stack trace, and still ten times the probe.
 */
function anyMember(pgid: number): boolean {
  const probe = nativeSpawner()?.probeGroup;
  // The probe refuses ids of 1 or less (`kill(-1, …)` reaches every process): asked as before.
  if (probe !== undefined && pgid > 1) {
    const errno = probe(pgid);
    return errno === 0 || errno === constants.errno.EPERM;
  }
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (e) {
    // ESRCH: the group is already gone, which is what we wanted.
    if ((e as NodeJS.ErrnoException).code !== "ESRCH") {
      process.emitWarning(`cannot send ${signal} to process group ${pgid}: ${errorMessage(e)}`);
    }
  }
}

/** Kills a process group: SIGTERM to every member, then SIGKILL after the grace period. */
export class GroupKiller {
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private sigkilledAt: number | undefined;

  constructor(
    private readonly pgid: number,
    private readonly graceMs: number,
  ) {}

  get killing(): boolean {
    return this.started;
  }

  kill(): void {
    if (this.started) return;
    this.started = true;
    signalGroup(this.pgid, "SIGTERM");
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sigkilledAt = Date.now();
      signalGroup(this.pgid, "SIGKILL");
    }, this.graceMs);
  }

  /**
   * Resolves once no member of the group runs any more. Members that detached from our pipes
   * (so the leader's close did not wait for them) get the rest of the grace period, then SIGKILL.
   */
  async gone(): Promise<void> {
    while (groupAlive(this.pgid)) {
      if (this.sigkilledAt !== undefined && Date.now() - this.sigkilledAt > AFTER_SIGKILL_MS) {
        process.emitWarning(`process group ${this.pgid} survived SIGKILL for ${AFTER_SIGKILL_MS} ms`);
        break;
      }
      await sleep(POLL_MS);
    }
    this.dispose();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
