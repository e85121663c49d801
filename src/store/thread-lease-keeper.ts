import { Worker } from "node:worker_threads";
import type { Lease } from "../domain/store.js";
import type { KeepOptions, LeaseHandle, LeaseKeeper, LeaseLoss } from "../engine/lease-keeper.js";
import type { FromThread, LeaseThreadData, ToThread } from "./lease-thread.js";

interface Kept {
  lease: Lease;
  opts: KeepOptions;
  onLost: (why: LeaseLoss) => void;
  /** Set once the thread failed and `fallback` keeps this lease instead. */
  handle?: LeaseHandle;
}

/**
 * A LeaseKeeper that renews from a worker thread with its own store connection (any store
 * `openStore` can open), so a lease never expires because the engine's thread is busy: a
 * registry render, a big diff, a parser on a huge reply. Only a dead process stops renewing.
 *
 * The thread starts with the first kept lease and ends with the last one, so an idle worker
 * holds no extra connection and a finished `fixpoint work` exits without a close call. When the
 * thread cannot start or open the store, `fallback` (renewing from this thread) takes over every
 * lease it kept, so a lease is never silently left to expire.
 */
export function createThreadLeaseKeeper(data: LeaseThreadData, fallback: LeaseKeeper): LeaseKeeper {
  let thread: Worker | null = null;
  let failed = false;
  let nextId = 1;
  const kept = new Map<number, Kept>();
  const stopped = new Map<number, () => void>();

  const fail = (w: Worker) => {
    if (thread === w) thread = null;
    failed = true;
    for (const k of kept.values()) k.handle ??= fallback.keep(k.lease, k.opts, k.onLost);
    for (const done of stopped.values()) done();
    void w.terminate();
  };

  const start = (): Worker => {
    const w = new Worker(new URL("./lease-thread.js", import.meta.url), { workerData: data });
    w.on("message", (msg: FromThread) => {
      if (msg.type === "lost") {
        const k = kept.get(msg.id);
        // Once the fallback keeps a lease (the thread failed), the fallback alone reports its loss.
        if (k === undefined || k.handle !== undefined) return;
        kept.delete(msg.id);
        k.onLost(msg.why);
      } else if (msg.type === "stopped") {
        stopped.get(msg.id)?.();
        if (kept.size === 0 && stopped.size === 0 && thread === w) {
          thread = null;
          void w.terminate();
        }
      } else fail(w);
    });
    w.on("error", () => fail(w));
    w.unref();
    return w;
  };

  return {
    keep(lease, opts, onLost): LeaseHandle {
      const id = nextId++;
      const k: Kept = { lease, opts, onLost };
      kept.set(id, k);
      if (failed) k.handle = fallback.keep(lease, opts, onLost);
      else {
        thread ??= start();
        thread.postMessage({ type: "keep", id, lease, ...opts } satisfies ToThread);
      }
      const w = thread;
      return {
        stop: async () => {
          kept.delete(id);
          if (k.handle) return k.handle.stop();
          if (w === null || thread !== w) return;
          await new Promise<void>((resolve) => {
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
          });
        },
      };
    },
  };
}
