/**
 * Which host and worker holds each running task and until when (`fixpoint status`). Apart from
 * workers.ts so that `status` does not load the engine.
 */
import type { Store } from "../domain/store.js";

export interface TaskHolder {
  taskId: string;
  workerId: string;
  /** The host part of the worker id (`host:pid:random`). */
  host: string;
  /** Epoch ms; on PostgreSQL the database server's clock. */
  leaseExpiresAt: number | null;
}

/** For every running task with a worker: which host and worker hold it and when the lease ends. */
export async function taskHolders(store: Store): Promise<TaskHolder[]> {
  const running = await store.listTasks({ statuses: ["running"] });
  return running.flatMap((t) =>
    t.workerId === null
      ? []
      : [{ taskId: t.id, workerId: t.workerId, host: hostOf(t.workerId), leaseExpiresAt: t.leaseExpiresAt }],
  );
}

/** `host:pid:random` → host; an id of another shape is its own host. */
export function hostOf(workerId: string): string {
  const parts = workerId.split(":");
  return parts.length >= 3 ? parts.slice(0, -2).join(":") : workerId;
}
