import type { StoreOps, TaskPatch } from "../domain/store.js";
import { type JsonObject, type Run, type Task, ZERO_USAGE } from "../domain/types.js";
import { loadRunState } from "../engine/checkpoint.js";
import { type RunState, stateToJson } from "../engine/state.js";
import { FixpointError } from "../errors.js";

/** The task's last run and the run state of its latest checkpoint; null before the first run. */
export async function lastRunState(tx: StoreOps, task: Task): Promise<{ run: Run; state: RunState } | null> {
  const run = (await tx.listRuns(task.id)).at(-1);
  if (!run) return null;
  // Through the engine's reader: a checkpoint may hold only the counters changed since a snapshot.
  const cp = await loadRunState(tx, task.id, run.id);
  return cp ? { run, state: cp.state } : null;
}

/**
 * A new run's state (resume, retry), carried over from the last run's: what belongs to one run
 * starts afresh — its visits, children pending a merge, its end, and its spend (the earlier runs'
 * spend is counted from their stages, engine/budget.ts) — and `changes` are applied on top.
 */
export function nextRunState(last: RunState, changes: Partial<RunState>): RunState {
  return {
    ...last,
    stoppedAt: null,
    pending: {},
    visits: {},
    final: null,
    usage: { ...ZERO_USAGE },
    costUsd: 0,
    ...changes,
  };
}

/** A checkpoint written by a use case (resume, retry): the state, one event, the task's position. */
export async function putCheckpoint(
  tx: StoreOps,
  opts: {
    task: Task;
    runId: number;
    state: RunState;
    event: { type: string; data: JsonObject };
    patch: TaskPatch;
    now: number;
  },
): Promise<void> {
  await tx.commitStage({
    taskId: opts.task.id,
    runId: opts.runId,
    stage: null,
    checkpoint: { state: stateToJson(opts.state) },
    findings: [],
    events: [{ taskId: opts.task.id, runId: opts.runId, type: opts.event.type, data: opts.event.data }],
    task: opts.patch,
    now: opts.now,
  });
}

/**
 * A task a user wants to restart must not be held by a live worker. A running task whose lease
 * has expired (its worker died or hangs) is taken over: the caller re-queues it, and the old
 * worker's writes are refused by the lease fencing. Otherwise the error says when that will be.
 * Returns whether the task was taken over.
 */
export function assertRestartable(task: Task, now: number): boolean {
  if (task.status !== "running") return false;
  const expires = task.leaseExpiresAt;
  if (expires !== null && expires <= now) return true;
  const when =
    expires === null
      ? "its worker holds it"
      : `its worker's lease expires at ${new Date(expires).toISOString()} (in ${Math.ceil((expires - now) / 1000)} s); run this again then to take it over`;
  throw new FixpointError(
    "usage",
    `${task.id} is running (${when}); or \`fixpoint cancel ${task.id}\` first, or let its worker finish`,
  );
}
