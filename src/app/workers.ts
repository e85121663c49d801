/**
 * Who is working: the workers registry joined with the tasks they hold (`fixpoint workers`), and
 * which host and worker holds each running task and until when (`fixpoint status`).
 */
import type { Store, WorkerRecord } from "../domain/store.js";
import { WORKER_HEARTBEAT_MS } from "../engine/worker.js";
import { groupBy } from "../util/group-by.js";

// Which worker holds each running task lives in holders.ts, so `status` need not load the engine.
export { hostOf, type TaskHolder, taskHolders } from "./holders.js";

/** A worker whose registry row was not refreshed for this long is taken as gone (crashed, cut off). */
export const WORKER_STALE_MS = 3 * WORKER_HEARTBEAT_MS;

export interface WorkerView extends WorkerRecord {
  /** Ids of the running tasks it holds. */
  tasks: string[];
  /** False when its heartbeat is older than WORKER_STALE_MS. */
  live: boolean;
}

/** Live workers (every recorded one with `all`), oldest first, each with the tasks it holds. */
export async function listWorkers(
  store: Store,
  now: number,
  opts: { all?: boolean } = {},
): Promise<WorkerView[]> {
  const [workers, running] = await Promise.all([
    store.listWorkers(),
    store.listTasks({ statuses: ["running"] }),
  ]);
  const byWorker = groupBy(running, (t) => t.workerId ?? undefined);
  const views = workers.map((w) => ({
    ...w,
    tasks: (byWorker.get(w.id) ?? []).map((t) => t.id),
    live: now - w.heartbeatAt <= WORKER_STALE_MS,
  }));
  return opts.all === true ? views : views.filter((w) => w.live);
}
