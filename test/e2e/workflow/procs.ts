import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Finds the agent processes of one task while `fixpoint work` runs it: every process whose
 * working directory is the task's worktree (the CLI and anything it spawned). Linux /proc only.
 */
export interface SeenProcess {
  pid: number;
  pgid: number;
}

function pgidOf(pid: number): number | null {
  try {
    // Field 5 of /proc/<pid>/stat; the command name (field 2) is in parentheses and may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pgid = Number(fields[2]);
    return Number.isInteger(pgid) ? pgid : null;
  } catch {
    return null;
  }
}

export function processesIn(dirSuffix: string, dirPrefix: string): SeenProcess[] {
  const out: SeenProcess[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      continue;
    }
    if (!cwd.startsWith(dirPrefix) || !cwd.endsWith(dirSuffix)) continue;
    const pgid = pgidOf(Number(name));
    if (pgid !== null) out.push({ pid: Number(name), pgid });
  }
  return out;
}

/** Polls every 100 ms until `stop()` and collects what it saw. */
export function watchProcesses(dirSuffix: string, dirPrefix: string): { stop: () => SeenProcess[] } {
  const seen = new Map<number, SeenProcess>();
  const timer = setInterval(() => {
    for (const p of processesIn(dirSuffix, dirPrefix)) seen.set(p.pid, p);
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return [...seen.values()];
    },
  };
}

export function alive(pid: number, group = false): boolean {
  try {
    process.kill(group ? -pid : pid, 0);
    return true;
  } catch {
    return false;
  }
}
