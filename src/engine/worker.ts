import { hostname } from "node:os";
import type { Lease } from "../domain/store.js";
import type { JsonObject, Task } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import { pidAlive } from "../util/process-group.js";
import { redactSecrets } from "../util/redact.js";
import { withAgentGroups } from "./agent-groups.js";
import { claimer } from "./claimer.js";
import { crashPoint } from "./crash-points.js";
import type { EngineDeps } from "./deps.js";
import type { RunEnd } from "./finish.js";
import { type LeaseLoss, leaseLossLine, monotonicMs, timerLeaseKeeper } from "./lease-keeper.js";
import { DRAINED, LEASE_LOST, runTask } from "./run-task.js";

export interface WorkerOptions {
  /** Only these tasks. */
  ids?: string[];
  concurrency: number;
  /** Claim at most one task per slot, then stop. */
  once: boolean;
  /** Keep polling for new tasks instead of stopping when the queue is empty. */
  watch: boolean;
  pollMs?: number;
  leaseMs?: number;
  /** Aborted on a second SIGINT/SIGTERM: running stages stop, work is committed, tasks stay resumable. */
  signal: AbortSignal;
  /**
   * Aborted on the first SIGTERM/SIGINT: claim nothing more, let each running stage finish and be
   * recorded, then hand its task back to the queue (checkpoint kept) instead of starting the next.
   */
  drain?: AbortSignal;
}

export interface WorkerSummary {
  ran: { taskId: string; end: RunEnd["kind"]; verdict: string | null; status: string }[];
  errors: { taskId: string; message: string }[];
}

export const DEFAULT_LEASE_MS = 30_000;
/** Shorter leases would expire between two renewals of a loaded machine. */
export const MIN_LEASE_MS = 200;

/** `host:pid:random` — lets `work` recognise a dead worker of this machine by its pid. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Claims tasks and runs them, `concurrency` at a time. Each task's lease is renewed by
 * `deps.leaseKeeper` (default: timers on this thread); every write the run makes is fenced by the
 * lease (worker id and token), and a lost lease (another worker took the task after an expiry, or `fixpoint cancel`) aborts that
 * task's run. One task's failure never stops the others.
 */
export async function runWorker(deps: EngineDeps, opts: WorkerOptions): Promise<WorkerSummary> {
  const workerId = newWorkerId();
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isFinite(leaseMs) || leaseMs < MIN_LEASE_MS) {
    throw new FixpointError("usage", `a lease must be at least ${MIN_LEASE_MS} ms (got ${leaseMs})`);
  }
  const summary: WorkerSummary = { ran: [], errors: [] };
  await releaseDeadLocalWorkers(deps);
  const registry = registerWorker(deps, workerId, Math.max(1, opts.concurrency));
  try {
    await runSlots(deps, opts, workerId, leaseMs, summary);
  } finally {
    await registry.stop();
  }
  return summary;
}

/** How long an idle worker waits for a NOTIFY before claiming anyway (expired leases send none). */
const NOTIFY_POLL_MS = 10_000;

async function runSlots(
  deps: EngineDeps,
  opts: WorkerOptions,
  workerId: string,
  leaseMs: number,
  summary: WorkerSummary,
): Promise<void> {
  const stop = opts.drain ? either(opts.signal, opts.drain) : opts.signal;
  const claims = claimer(deps, opts, stop);
  const slot = async (): Promise<void> => {
    // The lease of the task this slot finished last: released together with the next claim (one
    // write, one round trip on PostgreSQL), or on its own when the slot stops.
    let done: Lease | null = null;
    try {
      for (;;) {
        if (stop.aborted) return;
        const heldSince = monotonicMs();
        const task = await claims.next({ workerId, leaseMs, now: deps.clock.now(), ids: opts.ids }, done);
        if (task === "retry") continue;
        done = null;
        if (!task) {
          if (!opts.watch) return;
          const pollMs = opts.pollMs ?? 2000;
          if (deps.store.waitForWork) await deps.store.waitForWork(Math.max(pollMs, NOTIFY_POLL_MS), stop);
          else await deps.clock.sleep(pollMs, stop);
          continue;
        }
        done = await runClaimed(task, { workerId, leaseMs, heldSince }, deps, opts, summary);
        if (opts.once) return;
      }
    } finally {
      if (done) await deps.store.releaseTask(done, {}, deps.clock.now()).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, slot));
}

/** How often a worker refreshes its row in the workers registry (`fixpoint workers`). */
export const WORKER_HEARTBEAT_MS = 10_000;

/**
 * Records this worker in the store's registry and refreshes it until `stop`, which removes it.
 * The registry is informational: a failed write never stops the worker.
 */
function registerWorker(deps: EngineDeps, id: string, concurrency: number): { stop: () => Promise<void> } {
  const startedAt = deps.clock.now();
  const save = () =>
    deps.store
      .saveWorker({
        id,
        host: hostname(),
        pid: process.pid,
        concurrency,
        startedAt,
        heartbeatAt: deps.clock.now(),
      })
      .catch(() => undefined);
  const first = save();
  const timer = setInterval(save, WORKER_HEARTBEAT_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await first;
      await deps.store.removeWorker(id).catch(() => undefined);
    },
  };
}

/** The claim a slot holds: its worker, the lease length, and when the claim was sent (monotonic). */
interface Claim {
  workerId: string;
  leaseMs: number;
  heldSince: number;
}

async function runClaimed(
  task: Task,
  claim: Claim,
  deps: EngineDeps,
  signals: Pick<WorkerOptions, "signal" | "drain">,
  summary: WorkerSummary,
): Promise<Lease | null> {
  const outer = signals.signal;
  const { workerId, leaseMs } = claim;
  const lease: Lease = { taskId: task.id, workerId, token: task.leaseToken };
  crashPoint("claimed");
  const local = new AbortController();
  const onOuter = () => local.abort(outer.reason ?? "interrupted");
  outer.addEventListener("abort", onOuter, { once: true });
  const keeper = deps.leaseKeeper ?? timerLeaseKeeper(deps.store, deps.clock);
  const sayLost = lossReporter(deps, task.id, leaseMs);
  // Cancelled: stop, save the work, keep it cancelled. Taken over or expired: stop, write nothing.
  const keepOpts = { leaseMs, everyMs: heartbeatEvery(leaseMs), heldSince: claim.heldSince };
  const kept = keeper.keep(lease, keepOpts, (why) => {
    if (why !== "cancelled") sayLost(why);
    local.abort(why === "cancelled" ? "cancelled" : LEASE_LOST);
  });
  try {
    // An agent its dead predecessor left running is killed before this run touches the worktree.
    const end = await withAgentGroups(deps, task.id, workerId, (groups) =>
      runTask(
        task,
        { ...deps, lease, leaseMs, groups },
        { signal: local.signal, ...(signals.drain ? { drain: signals.drain } : {}) },
      ),
    );
    if (end.kind === "interrupted" && end.reason === LEASE_LOST) {
      // Not ours any more: nothing is read or written for it (the store may be out of reach).
      sayLost("refused");
      summary.ran.push({ taskId: task.id, end: end.kind, verdict: null, status: "running" });
      return null;
    }
    if (end.kind === "interrupted" && end.reason === DRAINED) {
      await handBack(deps, lease, end.stageId);
      summary.ran.push({ taskId: task.id, end: end.kind, verdict: null, status: "queued" });
      return lease;
    }
    const after = await deps.store.getTask(task.id);
    summary.ran.push({
      taskId: task.id,
      end: end.kind,
      verdict: after?.finalVerdict ?? null,
      status: after?.status ?? "unknown",
    });
  } catch (e) {
    const message = redactSecrets(errorMessage(e));
    if (isLeaseLost(e) || local.signal.reason === LEASE_LOST) {
      // Another worker owns the task now; it is not ours to mark failed.
      sayLost("refused", message);
      summary.ran.push({ taskId: task.id, end: "interrupted", verdict: null, status: "running" });
      return null;
    }
    summary.errors.push({ taskId: task.id, message });
    await recordFailure(deps, lease, message);
  } finally {
    await kept.stop();
    outer.removeEventListener("abort", onOuter);
  }
  // The caller releases the lease, with its next claim. A lost lease (returned as null above) is
  // left to end on the server's clock (or already moved on): releasing it would be refused anyway,
  // and would wait on a store that may be out of reach.
  return lease;
}

/** Says the one lease-lost line of a task, once, whoever notices first: the keeper or a refused write. */
function lossReporter(deps: EngineDeps, taskId: string, leaseMs: number) {
  let said = false;
  return (why: LeaseLoss | "refused", detail?: string) => {
    if (said) return;
    said = true;
    deps.listener({ type: "notice", taskId, message: leaseLossLine(taskId, why, leaseMs, detail) });
  };
}

/**
 * A drained task goes back to the queue with its run and checkpoint as they are: the next worker
 * to claim it continues the run from `stageId`. Fenced: when the lease was lost meanwhile, the new
 * owner decides and nothing is written.
 */
async function handBack(deps: EngineDeps, lease: Lease, stageId: string | null): Promise<void> {
  await requeue(deps, lease, "worker.drained", { workerId: lease.workerId, next: stageId });
  deps.listener({
    type: "notice",
    taskId: lease.taskId,
    message: `${lease.taskId} handed back to the queue${stageId ? ` before stage ${stageId}` : ""}; any worker continues it`,
  });
}

/**
 * Puts a task back in the queue with the event saying why, in one transaction fenced by `lease`:
 * when another worker took the task meanwhile, it is not ours to hand back and nothing is written.
 * Any other failure is a real one.
 */
async function requeue(deps: EngineDeps, lease: Lease, type: string, data: JsonObject): Promise<void> {
  const now = deps.clock.now();
  await deps.store
    .transaction(
      async (tx) => {
        await tx.releaseTask(lease, { status: "queued" }, now);
        await tx.appendEvents([{ taskId: lease.taskId, runId: null, type, data }], now);
      },
      { fence: lease },
    )
    .catch((e: unknown) => {
      if (!isLeaseLost(e)) throw e;
    });
}

function isLeaseLost(e: unknown): boolean {
  return e instanceof FixpointError && e.code === "lease_lost";
}

/** An unexpected error ends the task failed — only while this worker still holds it. */
async function recordFailure(deps: EngineDeps, lease: Lease, message: string): Promise<void> {
  const now = deps.clock.now();
  await deps.store
    .transaction(
      async (tx) => {
        await tx.updateTask(lease.taskId, { status: "failed", reason: message, currentStage: null }, now);
        await tx.appendEvents(
          [{ taskId: lease.taskId, runId: null, type: "task.error", data: { message } }],
          now,
        );
      },
      { fence: lease },
    )
    // Lost meanwhile (the new owner decides), or the store itself failed: the message was
    // already shown through the summary; nothing more can be recorded.
    .catch(() => undefined);
  deps.listener({ type: "notice", taskId: lease.taskId, message: `${lease.taskId} failed: ${message}` });
}

/**
 * A worker of this machine that died (SIGKILL, power loss) leaves its tasks running with a lease
 * that has not expired yet; when its pid is gone we can hand them back at once instead of waiting.
 */
async function releaseDeadLocalWorkers(deps: EngineDeps): Promise<void> {
  const running = await deps.store.listTasks({ statuses: ["running"] });
  const host = hostname();
  for (const t of running) {
    const [h, pid] = (t.workerId ?? "").split(":");
    if (h !== host || !pid || Number(pid) === process.pid) continue;
    if (!pidAlive(Number(pid)) && t.workerId) {
      // Fenced by the dead worker's own lease: when another worker took the task meanwhile, the
      // release and its event are not written (one transaction, both or neither).
      const lease = { taskId: t.id, workerId: t.workerId, token: t.leaseToken };
      await requeue(deps, lease, "worker.lost", { workerId: t.workerId });
    }
  }
}

/** Aborted when either signal is (AbortSignal.any needs Node 20.3; `engines` says 20). */
function either(a: AbortSignal, b: AbortSignal): AbortSignal {
  const ctl = new AbortController();
  const abort = () => ctl.abort();
  for (const s of [a, b]) {
    if (s.aborted) abort();
    else s.addEventListener("abort", abort, { once: true });
  }
  return ctl.signal;
}

/** Renew well within the lease, and often enough that `fixpoint cancel` stops a stage in ~2 s. */
export function heartbeatEvery(leaseMs: number): number {
  return Math.max(50, Math.min(Math.floor(leaseMs / 3), 2000));
}
