import { describe, expect, it } from "vitest";
import { type ClaimerDeps, claimer } from "../../src/engine/claimer.js";
import type { EngineEvent } from "../../src/engine/events.js";
import { FixpointError } from "../../src/errors.js";
import { fakeClock } from "../helpers/fake-clock.js";

/** Deps whose store fails `failures` claims with `error`, then finds the queue empty. */
function depsFailing(failures: number, error: FixpointError) {
  const events: EngineEvent[] = [];
  const clock = fakeClock();
  let calls = 0;
  const claim = async () => {
    calls++;
    if (calls <= failures) throw error;
    return null;
  };
  const store = { claimTask: claim, releaseAndClaim: claim };
  const deps: ClaimerDeps = { store, clock, listener: (e: EngineEvent) => events.push(e) };
  return { deps, events, clock, calls: () => calls };
}

const unreachable = () =>
  new FixpointError(
    "store",
    "cannot reach PostgreSQL at postgres://db/fixpoint (ECONNREFUSED) while claiming a task",
    {
      retryable: true,
    },
  );
const req = { workerId: "w", leaseMs: 1000, now: 0 };
const notices = (events: EngineEvent[]) => events.flatMap((e) => (e.type === "notice" ? [e.message] : []));

describe("claiming while the store does not answer", () => {
  it("a watching worker says so once, backs off (at most 5 s) and says when the store answers again", async () => {
    const t = depsFailing(8, unreachable());
    const claims = claimer(t.deps, { watch: true }, new AbortController().signal);
    const results: unknown[] = [];
    for (let i = 0; i < 9; i++) results.push(await claims.next(req));
    expect(results).toEqual([...Array(8).fill("retry"), null]);
    expect(notices(t.events)).toEqual([
      expect.stringMatching(
        /^cannot claim tasks: cannot reach PostgreSQL .*; trying again until it answers$/,
      ),
      "the store answers again; claiming tasks",
    ]);
    expect(t.clock.slept).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000, 5000]);
  });

  it("a worker without --watch stops with the error", async () => {
    const t = depsFailing(1, unreachable());
    const claims = claimer(t.deps, { watch: false }, new AbortController().signal);
    await expect(claims.next(req)).rejects.toThrow(/cannot reach PostgreSQL/);
    expect(notices(t.events)).toEqual([]);
  });

  it("an error that retrying cannot fix is not retried", async () => {
    const t = depsFailing(1, new FixpointError("config", "PostgreSQL refused the login"));
    const claims = claimer(t.deps, { watch: true }, new AbortController().signal);
    await expect(claims.next(req)).rejects.toThrow(/refused the login/);
    expect(t.calls()).toBe(1);
  });
});
