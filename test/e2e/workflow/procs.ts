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

/**
 * Processes working in the folder, outside this test's own process group: fixpoint runs in our
 * group (and so do the git commands it runs in the worktree), the agent in a group of its own.
 */
export function processesIn(dirSuffix: string, dirPrefix: string): SeenProcess[] {
  const own = pgidOf(process.pid);
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
    if (pgid !== null && pgid !== own) out.push({ pid: Number(name), pgid });
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

/** The processes in group `pgid`, with their command lines: what a failed check shows. */
export function groupMembers(pgid: number): string[] {
  const out: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || pgidOf(Number(name)) !== pgid) continue;
    try {
      out.push(`${name}: ${readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ")}`);
    } catch {
      out.push(`${name}: (gone)`);
    }
  }
  return out;
}
