import type { Clock } from "../domain/clock.js";
import type { Lease, Store } from "../domain/store.js";
import { crashPoint } from "./crash-points.js";

/** Why a kept lease ended: taken over by another worker, or the task was cancelled. */
export type LeaseLoss = "lost" | "cancelled";

export interface LeaseHandle {
  /** Stops renewing. Resolves once no renewal is in flight. Must not throw. */
  stop(): Promise<void>;
}

/**
 * Keeps a worker's lease alive while it runs a task. Renewal must not depend on the engine's own
 * work: an implementation that renews from the engine's event loop (timerLeaseKeeper) loses the
 * lease when a synchronous step outlasts it; the CLI's keeper renews from a separate thread with
 * its own store connection (src/store/thread-lease-keeper.ts).
 *
 * Contract: renew every `everyMs`; call `onLost` at most once, when the store says the lease no
 * longer holds; a failed renewal (store busy, network) is not a loss — the next beat tries again,
 * and the fenced writes still refuse a worker whose lease really moved on. Must not throw.
 */
export interface LeaseKeeper {
  keep(
    lease: Lease,
    opts: { leaseMs: number; everyMs: number },
    onLost: (why: LeaseLoss) => void,
  ): LeaseHandle;
}

/** One renewal: "held", or why the lease is gone. Throws only what the store throws. */
export async function renewLease(
  store: Store,
  lease: Lease,
  leaseMs: number,
  now: number,
): Promise<"held" | LeaseLoss> {
  if (await store.heartbeat(lease, leaseMs, now)) {
    crashPoint("lease-renewed");
    return "held";
  }
  const task = await store.getTask(lease.taskId);
  return task?.status === "cancelled" ? "cancelled" : "lost";
}

/** Renews from this thread's event loop: fine for a worker whose every step yields quickly. */
export function timerLeaseKeeper(store: Store, clock: Clock): LeaseKeeper {
  return {
    keep(lease, opts, onLost) {
      let stopped = false;
      let inFlight: Promise<void> = Promise.resolve();
      const beat = setInterval(() => {
        inFlight = renewLease(store, lease, opts.leaseMs, clock.now()).then(
          (r) => {
            if (r === "held" || stopped) return;
            stopped = true;
            clearInterval(beat);
            onLost(r);
          },
          // A store error is not a loss (see the contract): the next beat tries again.
          () => undefined,
        );
      }, opts.everyMs);
      return {
        async stop() {
          stopped = true;
          clearInterval(beat);
          await inFlight;
        },
      };
    },
  };
}
