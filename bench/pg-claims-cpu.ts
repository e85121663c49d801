/**
 * CPU time the PostgreSQL server spends, read from /proc: the postmaster, every live child
 * (backends, autovacuum, writers) and the children it already reaped. On a machine shared with
 * other work the jobs/s of a run move with the load; CPU per job does much less, so the claims
 * benchmark reports both. Only for a server on this machine (Linux); elsewhere `null`.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  return ticksPerSecond;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function statFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** The postmaster's pid when the server at `url` runs on this machine, else null. */
export async function postmasterPid(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const backend = r.rows[0]?.pid;
    // Field 4 of stat is the parent pid; after the name it is index 1.
    const parent = backend === undefined ? undefined : statFields(backend)?.[1];
    return parent === undefined ? null : Number(parent);
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/** Seconds of CPU the server has used so far (itself, its live children, its reaped children). */
export function serverCpuSeconds(postmaster: number): number {
  // After the name: utime 11, stime 12, cutime 13, cstime 14 (stat fields 14–17).
  const own = statFields(postmaster);
  if (own === null) return 0;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (f !== null && Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / clockTicks();
}
