import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// The compiled module of dist/ (built by the global setup), whose thread file is there to start.
import { createThreadLeaseKeeper } from "../../dist/store/thread-lease-keeper.js";
import type { Store } from "../../src/domain/store.js";
import { timerLeaseKeeper } from "../../src/engine/lease-keeper.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
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

  it("the thread keeper gives a lease up on time while the database does not answer, its store not even open", async () => {
    const c = await claimed(400);
    // Accepts connections and never answers: a database on the far side of a partition.
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const { port } = silent.address() as AddressInfo;
    try {
      const keeper = createThreadLeaseKeeper(
        { url: `postgres://fixpoint@127.0.0.1:${port}/fixpoint`, projectRoot: dir ?? "." },
        timerLeaseKeeper(c.store, systemClock),
      );
      const lost: string[] = [];
      const kept = keeper.keep(c.lease, { leaseMs: 400, everyMs: 100 }, (why) => lost.push(why));
      // Opening that store waits 10 s for each connection; the lease ends after 0.4 s all the same.
      const start = Date.now();
      while (lost.length === 0 && Date.now() - start < 5000) await new Promise((r) => setTimeout(r, 20));
      expect(lost).toEqual(["expired"]);
      await kept.stop();
      expect(lost).toEqual(["expired"]);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
