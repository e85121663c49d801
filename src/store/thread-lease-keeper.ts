import { Worker } from "node:worker_threads";
import type { LeaseHandle, LeaseKeeper, LeaseLoss } from "../engine/lease-keeper.js";
import type { FromThread, LeaseThreadData, ToThread } from "./lease-thread.js";

/**
 * A LeaseKeeper that renews from a worker thread with its own store connection (any store
 * `openStore` can open), so a lease never expires because the engine's thread is busy: a
 * registry render, a big diff, a parser on a huge reply. Only a dead process stops renewing.
 *
 * The thread starts with the first kept lease and ends with the last one, so an idle worker
 * holds no extra connection and a finished `fixpoint work` exits without a close call.
 */
export function createThreadLeaseKeeper(data: LeaseThreadData): LeaseKeeper {
  let thread: Worker | null = null;
  let nextId = 1;
  const lost = new Map<number, (why: LeaseLoss) => void>();
  const stopped = new Map<number, () => void>();

  const start = (): Worker => {
    const w = new Worker(new URL("./lease-thread.js", import.meta.url), { workerData: data });
    w.on("message", (msg: FromThread) => {
      if (msg.type === "lost") {
        const f = lost.get(msg.id);
        lost.delete(msg.id);
        f?.(msg.why);
      } else if (msg.type === "stopped") {
        stopped.get(msg.id)?.();
        if (lost.size === 0 && stopped.size === 0 && thread === w) {
          thread = null;
          void w.terminate();
        }
      }
      // "error": the thread could not open the store. The engine's fenced writes still refuse a
      // worker that loses its lease; the lease then simply expires after its time.
    });
    // A crashed thread renews nothing; fenced writes keep the store consistent regardless.
    w.on("error", () => {
      if (thread === w) thread = null;
    });
    w.unref();
    return w;
  };

  return {
    keep(lease, opts, onLost): LeaseHandle {
      thread ??= start();
      const w = thread;
      const id = nextId++;
      lost.set(id, onLost);
      w.postMessage({
        type: "keep",
        id,
        lease,
        leaseMs: opts.leaseMs,
        everyMs: opts.everyMs,
      } satisfies ToThread);
      return {
        stop: () =>
          new Promise<void>((resolve) => {
            lost.delete(id);
            if (thread !== w) return resolve();
            // The thread answers at once unless a renewal is in flight; never wait on a dead one.
            // This timer is NOT unref'd: the thread and its port are, so without it nothing would
            // keep the process alive until the answer arrives, and it would exit mid-`finally`.
            const timer = setTimeout(done, 2000);
            function done() {
              clearTimeout(timer);
              stopped.delete(id);
              resolve();
            }
            stopped.set(id, done);
            w.postMessage({ type: "stop", id } satisfies ToThread);
          }),
      };
    },
  };
}
