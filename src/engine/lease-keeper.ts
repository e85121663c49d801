import type { Clock } from "../domain/clock.js";
import type { Lease, Store } from "../domain/store.js";
import { crashPoint } from "./crash-points.js";

/**
 * Why a kept lease ended: taken over by another worker, the task was cancelled, or no renewal
 * succeeded for a whole lease (the database is unreachable or too slow): by then the lease has
 * ended on the server's clock too, and another worker may take the task over at any moment.
 */
export type LeaseLoss = "lost" | "cancelled" | "expired";

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
 * longer holds, or ("expired") when no renewal has succeeded for `leaseMs` by this process's
 * monotonic clock, counted from when the last successful renewal (or the claim, `heldSince`) was
 * SENT — never later than the server's own expiry, and without asking the database, which may be
 * out of reach. A failed renewal (store busy, network) is not a loss by itself — the next beat
 * tries again, and the fenced writes still refuse a worker whose lease really moved on. Must not
 * throw.
 */
export interface LeaseKeeper {
  keep(lease: Lease, opts: KeepOptions, onLost: (why: LeaseLoss) => void): LeaseHandle;
}

export interface KeepOptions {
  leaseMs: number;
  everyMs: number;
  /** `monotonicMs()` just before the claim was sent (default: when `keep` is called). */
  heldSince?: number;
}

/**
 * Milliseconds on a clock that never jumps (CLOCK_MONOTONIC), the same in every thread of the
 * process: a lease deadline must not move when the wall clock is set.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/**
 * The renewal loop both keepers run: one renewal at a time, every `everyMs`; the lease is given up
 * as "expired" once `leaseMs` have passed since the last successful renewal was sent, even while
 * a renewal hangs on a black-holed connection. `renew` resolves "held" or the loss, or rejects
 * (not a loss). `now` is the monotonic clock (injected by tests).
 */
export function renewalLoop(
  renew: () => Promise<"held" | LeaseLoss>,
  opts: KeepOptions,
  onLost: (why: LeaseLoss) => void,
  now: () => number = monotonicMs,
): LeaseHandle {
  let stopped = false;
  let expired = false;
  let heldAt = opts.heldSince ?? now();
  let lastSent = heldAt;
  let inFlight: Promise<void> | null = null;
  const end = (why: LeaseLoss) => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    onLost(why);
  };
  const tick = () => {
    if (stopped) return;
    if (now() - heldAt >= opts.leaseMs) {
      expired = true;
      end("expired");
      return;
    }
    const sent = now();
    if (inFlight !== null || sent - lastSent < opts.everyMs) return;
    lastSent = sent;
    inFlight = renew()
      .then(
        (r) => {
          if (r === "held") heldAt = Math.max(heldAt, sent);
          else end(r);
        },
        // A store error is not a loss (see the contract): the deadline above decides.
        () => undefined,
      )
      .finally(() => {
        inFlight = null;
      });
  };
  // Ticks often enough to notice the deadline within a tenth of the lease; renews every `everyMs`.
  const timer = setInterval(tick, Math.max(20, Math.min(opts.everyMs, Math.floor(opts.leaseMs / 10))));
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      // A renewal hanging on a dead connection is not waited for once the lease has expired:
      // the pool's query timeout ends it.
      if (!expired) await inFlight;
    },
  };
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
      return renewalLoop(() => renewLease(store, lease, opts.leaseMs, clock.now()), opts, onLost);
    },
  };
}

/** The one line a worker says when it stops a task because its lease is gone. */
export function leaseLossLine(
  taskId: string,
  why: LeaseLoss | "refused",
  leaseMs: number,
  detail?: string,
): string {
  const cause =
    why === "expired"
      ? `not renewed for ${(leaseMs / 1000).toFixed(1)} s (the database did not answer in time)`
      : why === "lost"
        ? "another worker holds the task now"
        : `another worker holds the task now (the store refused this worker's write${detail ? `: ${detail}` : ""})`;
  return `${taskId}: lease lost: ${cause}; stopped its stage and wrote nothing more; the worker that claims it next continues from its last checkpoint`;
}
