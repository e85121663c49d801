import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type LeaseLoss, renewalLoop } from "../../src/engine/lease-keeper.js";

// Timers and the monotonic clock are both virtual: Date.now() is faked along with setInterval.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const later = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs a renewal loop for `forMs` of virtual time; what it reported, and how many renewals it sent. */
async function run(renew: () => Promise<"held" | LeaseLoss>, forMs: number, leaseMs = 300) {
  const lost: { why: LeaseLoss; after: number }[] = [];
  const start = Date.now();
  let sent = 0;
  const handle = renewalLoop(
    () => {
      sent++;
      return renew();
    },
    { leaseMs, everyMs: 50, heldSince: start },
    (why) => lost.push({ why, after: Date.now() - start }),
    () => Date.now(),
  );
  await vi.advanceTimersByTimeAsync(forMs);
  // stop() waits for a renewal in flight (unless the lease expired): let its answer come.
  const stopping = handle.stop();
  await vi.advanceTimersByTimeAsync(1000);
  await stopping;
  return { lost, sent };
}

describe("a lease past due by the worker's own clock", () => {
  it("is given up as expired while a renewal hangs (a black-holed connection), without waiting for it", async () => {
    const { lost, sent } = await run(() => new Promise(() => undefined), 1000);
    expect(lost.map((l) => l.why)).toEqual(["expired"]);
    // Within a tenth of the lease after its end.
    expect(lost[0]?.after).toBeGreaterThanOrEqual(300);
    expect(lost[0]?.after).toBeLessThanOrEqual(330);
    // One renewal at a time: the hanging one is not joined by more.
    expect(sent).toBe(1);
  });

  it("is given up as expired when every renewal fails (the store unreachable)", async () => {
    const { lost, sent } = await run(() => Promise.reject(new Error("ECONNREFUSED")), 1000);
    expect(lost.map((l) => l.why)).toEqual(["expired"]);
    expect(sent).toBeGreaterThan(3);
  });

  it("is kept as long as renewals succeed, however long that is", async () => {
    const { lost, sent } = await run(() => Promise.resolve("held"), 10_000);
    expect(lost).toEqual([]);
    expect(sent).toBeGreaterThan(100);
  });

  it("counts from when a successful renewal was sent, not when its answer came", async () => {
    // Each answer takes 100 ms: the lease (300 ms) is renewed in time, every time.
    const slow = await run(() => later(100).then(() => "held" as const), 5000);
    expect(slow.lost).toEqual([]);
    // Answers that take longer than the lease cannot keep it: by the time one arrives, the lease
    // it renewed may already have been taken.
    const late = await run(() => later(400).then(() => "held" as const), 5000);
    expect(late.lost.map((l) => l.why)).toEqual(["expired"]);
  });

  it("reports a takeover the store answers with, once, and renews no more", async () => {
    let n = 0;
    const { lost, sent } = await run(() => Promise.resolve(++n < 3 ? "held" : "lost"), 2000);
    expect(lost.map((l) => l.why)).toEqual(["lost"]);
    expect(sent).toBe(3);
  });
});
