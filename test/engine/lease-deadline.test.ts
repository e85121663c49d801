import { describe, expect, it } from "vitest";
import { type LeaseLoss, monotonicMs, renewalLoop } from "../../src/engine/lease-keeper.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs a renewal loop for `forMs` and returns what it reported and how many renewals it sent. */
async function run(renew: () => Promise<"held" | LeaseLoss>, forMs: number, leaseMs = 300) {
  const lost: { why: LeaseLoss; after: number }[] = [];
  const start = monotonicMs();
  let sent = 0;
  const handle = renewalLoop(
    () => {
      sent++;
      return renew();
    },
    { leaseMs, everyMs: 50, heldSince: start },
    (why) => lost.push({ why, after: monotonicMs() - start }),
  );
  await sleep(forMs);
  await handle.stop();
  return { lost, sent };
}

describe("a lease past due by the worker's own clock", () => {
  it("is given up as expired while a renewal hangs (a black-holed connection), without waiting for it", async () => {
    const { lost, sent } = await run(() => new Promise(() => undefined), 700);
    expect(lost.map((l) => l.why)).toEqual(["expired"]);
    expect(lost[0]?.after).toBeGreaterThanOrEqual(300);
    expect(lost[0]?.after).toBeLessThan(1000);
    // One renewal at a time: the hanging one is not joined by more.
    expect(sent).toBe(1);
  });

  it("is given up as expired when every renewal fails (the store unreachable)", async () => {
    const { lost, sent } = await run(() => Promise.reject(new Error("ECONNREFUSED")), 700);
    expect(lost.map((l) => l.why)).toEqual(["expired"]);
    expect(sent).toBeGreaterThan(2);
  });

  it("is kept as long as renewals succeed, however long that is", async () => {
    const { lost, sent } = await run(() => Promise.resolve("held"), 1000, 600);
    expect(lost).toEqual([]);
    expect(sent).toBeGreaterThan(5);
  });

  it("counts from when a successful renewal was sent, not when its answer came", async () => {
    // Each answer takes 150 ms: the lease (600 ms) is still renewed in time, every time.
    const slow = await run(() => sleep(150).then(() => "held" as const), 1200, 600);
    expect(slow.lost).toEqual([]);
    // Answers that take longer than the lease cannot keep it: by the time one arrives the lease
    // it renewed may already have been taken.
    const late = await run(() => sleep(400).then(() => "held" as const), 1200);
    expect(late.lost.map((l) => l.why)).toEqual(["expired"]);
  });

  it("reports a takeover the store answers with, once", async () => {
    let n = 0;
    const { lost } = await run(() => Promise.resolve(++n < 3 ? "held" : "lost"), 600);
    expect(lost.map((l) => l.why)).toEqual(["lost"]);
  });
});
