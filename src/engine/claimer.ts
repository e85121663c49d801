import type { Clock } from "../domain/clock.js";
import type { ClaimRequest, Lease, Store } from "../domain/store.js";
import type { Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { redactSecrets } from "../util/redact.js";
import type { EngineListener } from "./events.js";

/** What claiming touches of the engine's deps. */
export interface ClaimerDeps {
  store: Pick<Store, "claimTask" | "releaseAndClaim">;
  clock: Clock;
  listener: EngineListener;
}

/** The longest a watching worker waits before claiming again after the store failed. */
const CLAIM_RETRY_MAX_MS = 5_000;

/**
 * Claims for every slot. A watching worker outlives a store it cannot reach (a network partition,
 * a database restart): a retryable store error is said once, in one line, and the claim is tried
 * again with backoff until the store answers (then it says so). Without `--watch` the error ends
 * the worker, like any other error.
 */
export function claimer(deps: ClaimerDeps, opts: { watch: boolean }, stop: AbortSignal) {
  let failures = 0;
  return {
    /**
     * The next task, or null when none is runnable. `done`: the lease of the task this slot just
     * finished, released in the same write as the claim (one round trip between two tasks);
     * on "retry" neither happened, and the caller passes it again.
     */
    async next(req: ClaimRequest, done: Lease | null = null): Promise<Task | null | "retry"> {
      try {
        const task =
          done === null
            ? await deps.store.claimTask(req)
            : await deps.store.releaseAndClaim({ lease: done, patch: {} }, req);
        if (failures > 0) {
          failures = 0;
          deps.listener({ type: "notice", taskId: "", message: "the store answers again; claiming tasks" });
        }
        return task;
      } catch (e) {
        if (!opts.watch || !(e instanceof FixpointError) || e.code !== "store" || !e.retryable) throw e;
        if (failures++ === 0) {
          deps.listener({
            type: "notice",
            taskId: "",
            message: `cannot claim tasks: ${redactSecrets(e.message)}; trying again until it answers`,
          });
        }
        await deps.clock.sleep(Math.min(CLAIM_RETRY_MAX_MS, 250 * 2 ** Math.min(failures, 5)), stop);
        return "retry";
      }
    },
  };
}
