/**
 * Named points where a worker can die between two durable writes (docs/reliability.md lists
 * what each one leaves behind and how the next worker recovers). Tests kill the worker at each
 * point through two environment switches, read once per process:
 *
 * - `FIXPOINT_CRASH_AT=<point>[:<n>]` — SIGKILL this process at the n-th hit (default 1st);
 * - `FIXPOINT_STALL_AT=<point>:<ms>[:<n>]` — block this thread synchronously for `ms` (no timer,
 *   no event loop turn) at the n-th hit: a stand-in for synchronous work that outlasts the lease.
 *
 * Both are for fault tests only; unset, a crash point costs one property lookup.
 */
export type CrashPoint =
  /** A task was claimed; nothing else is written yet. */
  | "claimed"
  /** A run and its first checkpoint were written. */
  | "run-started"
  /** A stage is about to run its handler (agent, gates, …). */
  | "stage-started"
  /** The agent process of a stage exited; its result is not recorded yet. */
  | "agent-exited"
  /** A stage's work was committed to git; the stage record is not written yet. */
  | "commit-made"
  /** A stage's record and checkpoint were written (one transaction). */
  | "checkpoint-written"
  /** The final verdict, run end, registry and follow-ups were written (one transaction). */
  | "verdict-written"
  /** The task branch was pushed to the push remote; the checkpoint naming its sha is not written yet. */
  | "pushed"
  /** A heartbeat renewed the lease. */
  | "lease-renewed"
  /** A `github` `push` stage pushed the task branch to origin; its stage record is not written yet. */
  | "pr-pushed"
  /** A `github` `reply` stage posted one thread reply; its idempotency marker is not set yet. */
  | "reply-posted";

export const CRASH_POINTS: readonly CrashPoint[] = [
  "claimed",
  "run-started",
  "stage-started",
  "agent-exited",
  "commit-made",
  "checkpoint-written",
  "verdict-written",
  "pushed",
  "lease-renewed",
  "pr-pushed",
  "reply-posted",
];

interface Switch {
  point: string;
  hit: number;
  stallMs: number | null;
}

let switches: Switch[] | null = null;
const hits = new Map<string, number>();

/** Parses the two switches; a malformed value is ignored (these are test-only knobs). */
export function parseSwitches(env: { FIXPOINT_CRASH_AT?: string; FIXPOINT_STALL_AT?: string }): Switch[] {
  const out: Switch[] = [];
  const crash = env.FIXPOINT_CRASH_AT?.trim();
  if (crash) {
    const [point, n] = crash.split(":");
    if (point) out.push({ point, hit: positive(n) ?? 1, stallMs: null });
  }
  const stall = env.FIXPOINT_STALL_AT?.trim();
  if (stall) {
    const [point, ms, n] = stall.split(":");
    const stallMs = positive(ms);
    if (point && stallMs !== null) out.push({ point, hit: positive(n) ?? 1, stallMs });
  }
  return out;
}

function positive(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n > 0 ? n : null;
}

/** Marks that the worker reached `point`; kills or stalls the process there when a switch says so. */
export function crashPoint(point: CrashPoint): void {
  // Read once: library code does not otherwise look at process.env; this is the test harness's door.
  switches ??= parseSwitches(process.env);
  if (switches.length === 0) return;
  const n = (hits.get(point) ?? 0) + 1;
  hits.set(point, n);
  for (const s of switches) {
    if (s.point !== point || s.hit !== n) continue;
    if (s.stallMs === null) process.kill(process.pid, "SIGKILL");
    else stall(s.stallMs);
  }
}

/** Blocks this thread without a timer and without burning CPU. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
