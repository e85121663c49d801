import { hostname } from "node:os";
import type { Task } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import { redactSecrets } from "../util/redact.js";
import { withAgentGroups } from "./agent-groups.js";
import type { EngineDeps } from "./deps.js";
import type { RunEnd } from "./finish.js";
import { LEASE_LOST, runTask } from "./run-task.js";

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
  /** Aborted on SIGINT/SIGTERM: running stages stop, work is committed, tasks stay resumable. */
  signal: AbortSignal;
}

export interface WorkerSummary {
  ran: { taskId: string; end: RunEnd["kind"]; verdict: string | null; status: string }[];
  errors: { taskId: string; message: string }[];
}

export const DEFAULT_LEASE_MS = 30_000;

/** `host:pid:random` — lets `work` recognise a dead worker of this machine by its pid. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Claims tasks and runs them, `concurrency` at a time. Each task's lease is renewed by heartbeat;
 * a lost lease (another worker took the task after an expiry, or `fixpoint cancel`) aborts that
 * task's run. One task's failure never stops the others.
 */
export async function runWorker(deps: EngineDeps, opts: WorkerOptions): Promise<WorkerSummary> {
  const workerId = newWorkerId();
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const summary: WorkerSummary = { ran: [], errors: [] };
  await releaseDeadLocalWorkers(deps);

  const slot = async (): Promise<void> => {
    for (;;) {
      if (opts.signal.aborted) return;
      const task = await deps.store.claimTask({ workerId, leaseMs, now: deps.clock.now(), ids: opts.ids });
      if (!task) {
        if (!opts.watch) return;
        await deps.clock.sleep(opts.pollMs ?? 2000, opts.signal);
        continue;
      }
      await runClaimed(task, workerId, leaseMs, deps, opts.signal, summary);
      if (opts.once) return;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, slot));
  return summary;
}

async function runClaimed(
  task: Task,
  workerId: string,
  leaseMs: number,
  deps: EngineDeps,
  outer: AbortSignal,
  summary: WorkerSummary,
): Promise<void> {
  const local = new AbortController();
  const onOuter = () => local.abort(outer.reason ?? "interrupted");
  outer.addEventListener("abort", onOuter, { once: true });
  const beat = setInterval(() => {
    deps.store
      .heartbeat(task.id, workerId, leaseMs, deps.clock.now())
      .then(async (held) => {
        if (held) return;
        // Cancelled: stop, save the work, keep it cancelled. Taken over: stop and write nothing.
        const now = await deps.store.getTask(task.id);
        local.abort(now?.status === "cancelled" ? "cancelled" : LEASE_LOST);
      })
      .catch(() => undefined);
  }, heartbeatEvery(leaseMs));
  try {
    // An agent its dead predecessor left running is killed before this run touches the worktree.
    const end = await withAgentGroups(deps, task.id, workerId, () =>
      runTask(task, { ...deps, workerId }, { signal: local.signal }),
    );
    const after = await deps.store.getTask(task.id);
    summary.ran.push({
      taskId: task.id,
      end: end.kind,
      verdict: after?.finalVerdict ?? null,
      status: after?.status ?? "unknown",
    });
  } catch (e) {
    const message = redactSecrets(errorMessage(e));
    if (e instanceof FixpointError && e.code === "lease_lost") {
      // Another worker owns the task now; it is not ours to mark failed.
      summary.ran.push({ taskId: task.id, end: "interrupted", verdict: null, status: "running" });
      deps.listener({ type: "notice", taskId: task.id, message: `${task.id}: ${message}` });
      return;
    }
    summary.errors.push({ taskId: task.id, message });
    await deps.store
      .updateTask(task.id, { status: "failed", reason: message, currentStage: null }, deps.clock.now())
      .catch(() => undefined);
    await deps.store
      .appendEvents(
        [{ taskId: task.id, runId: null, type: "task.error", data: { message } }],
        deps.clock.now(),
      )
      .catch(() => undefined);
    deps.listener({ type: "notice", taskId: task.id, message: `${task.id} failed: ${message}` });
  } finally {
    clearInterval(beat);
    outer.removeEventListener("abort", onOuter);
    await deps.store.releaseTask(task.id, workerId, {}, deps.clock.now()).catch(() => undefined);
  }
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
      await deps.store.releaseTask(t.id, t.workerId, { status: "queued" }, deps.clock.now());
      await deps.store.appendEvents(
        [{ taskId: t.id, runId: null, type: "worker.lost", data: { workerId: t.workerId } }],
        deps.clock.now(),
      );
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Renew well within the lease, and often enough that `fixpoint cancel` stops a stage in ~2 s. */
export function heartbeatEvery(leaseMs: number): number {
  return Math.max(50, Math.min(Math.floor(leaseMs / 3), 2000));
}
