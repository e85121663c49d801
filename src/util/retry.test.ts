import { describe, expect, it } from "vitest";
import { fakeClock } from "../../test/helpers/fake-clock.js";
import { backoffDelay, GITHUB_RETRY, withRetry } from "./retry.js";

const policy = { attempts: 4, baseMs: 1000, maxMs: 3000 };

describe("backoff", () => {
  it("doubles, caps, and scales by the jitter into [50%, 100%]", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, policy, () => 0.999999))).toEqual([
      1000, 2000, 3000, 3000,
    ]);
    expect(backoffDelay(2, policy, () => 0)).toBe(1000);
  });

  it("retries transient outcomes until success, waiting between attempts", async () => {
    const clock = fakeClock();
    const outcomes = ["503", "429", "ok"];
    const seen: number[] = [];
    const out = await withRetry(
      async (n) => {
        seen.push(n);
        return outcomes[n - 1] ?? "ok";
      },
      { policy, deps: { clock, jitter: () => 0.5 }, shouldRetry: (o) => o !== "ok" },
    );
    expect(out).toBe("ok");
    expect(seen).toEqual([1, 2, 3]);
    expect(clock.slept).toEqual([750, 1500]);
  });

  it("stops at the attempt limit, on a permanent outcome, and when aborted", async () => {
    const clock = fakeClock();
    let calls = 0;
    await withRetry(async () => ++calls, {
      policy,
      deps: { clock, jitter: () => 0 },
      shouldRetry: () => true,
    });
    expect(calls).toBe(4);
    calls = 0;
    await withRetry(async () => ++calls, { policy, deps: { clock }, shouldRetry: () => false });
    expect(calls).toBe(1);
    const ac = new AbortController();
    ac.abort();
    calls = 0;
    await withRetry(async () => ++calls, {
      policy,
      deps: { clock },
      signal: ac.signal,
      shouldRetry: () => true,
    });
    expect(calls).toBe(1);
  });

  it("a wait the server asked for wins over the backoff; GitHub's numbers double from 1 s", () => {
    expect([1, 2, 3].map((n) => backoffDelay(n, GITHUB_RETRY, () => 0.999999))).toEqual([1000, 2000, 4000]);
    expect(backoffDelay(20, GITHUB_RETRY, () => 0.999999)).toBe(30_000);
    expect(backoffDelay(3, GITHUB_RETRY, () => 0, 4200)).toBe(4200);
  });

  it("honours the server's wait, and makes no retry whose wait would pass the deadline", async () => {
    const clock = fakeClock();
    const waits = [500, 60_000];
    let calls = 0;
    const out = await withRetry(async () => ++calls, {
      policy,
      deps: { clock, jitter: () => 0 },
      deadline: 10_000,
      shouldRetry: () => true,
      serverWaitMs: (n) => waits[n - 1],
    });
    expect(out).toBe(2);
    expect(clock.slept).toEqual([500]);
  });
});
