import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/store.js";
import { timerLeaseKeeper } from "../../src/engine/lease-keeper.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { createThreadLeaseKeeper } from "../../src/store/thread-lease-keeper.js";
import { systemClock } from "../../src/util/clock.js";
import { newTask } from "../store/samples.js";

let dir: string | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = undefined;
  dir = undefined;
});

async function claimed(leaseMs: number) {
  dir = mkdtempSync(join(tmpdir(), "fixpoint-lease-"));
  store = await openSqliteStore(join(dir, "fixpoint.db"));
  await store.createTask(newTask(), Date.now());
  const t = await store.claimTask({ workerId: "w", leaseMs, now: Date.now() });
  if (!t?.workerId) throw new Error("no claim");
  return {
    store,
    lease: { taskId: t.id, workerId: t.workerId, token: t.leaseToken },
    until: t.leaseExpiresAt ?? 0,
  };
}

describe("lease keepers", () => {
  it("the timer keeper renews the lease, and reports a takeover once", async () => {
    const c = await claimed(300);
    const lost: string[] = [];
    const kept = timerLeaseKeeper(c.store, systemClock).keep(c.lease, { leaseMs: 300, everyMs: 50 }, (why) =>
      lost.push(why),
    );
    await new Promise((r) => setTimeout(r, 250));
    expect((await c.store.getTask(c.lease.taskId))?.leaseExpiresAt ?? 0).toBeGreaterThan(c.until);
    // Another worker takes the task over (its lease looked expired to it).
    await c.store.claimTask({ workerId: "thief", leaseMs: 60_000, now: Date.now() + 3_600_000 });
    await new Promise((r) => setTimeout(r, 200));
    await kept.stop();
    expect(lost).toEqual(["lost"]);
  });

  it("the thread keeper falls back to renewing from this thread when its thread cannot open the store", async () => {
    const c = await claimed(300);
    const keeper = createThreadLeaseKeeper(
      { url: "not-a-database", projectRoot: dir ?? "." },
      timerLeaseKeeper(c.store, systemClock),
    );
    const lost: string[] = [];
    const kept = keeper.keep(c.lease, { leaseMs: 300, everyMs: 50 }, (why) => lost.push(why));
    await new Promise((r) => setTimeout(r, 1500));
    // Well past the first lease: still held, renewed by the fallback.
    expect((await c.store.getTask(c.lease.taskId))?.leaseExpiresAt ?? 0).toBeGreaterThan(Date.now());
    await kept.stop();
    expect(lost).toEqual([]);
  });
});
