/** `fixpoint workers` and the status holders section, over a real SQLite store. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hostOf, listWorkers, taskHolders, WORKER_STALE_MS } from "../../src/app/workers.js";
import type { Store } from "../../src/domain/store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { newTask } from "./samples.js";

let dir = "";
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("workers view", () => {
  it("joins live workers with the tasks they hold and hides stale ones unless asked", async () => {
    dir = mkdtempSync(join(tmpdir(), "fixpoint-workers-"));
    store = await openSqliteStore(join(dir, "s.db"));
    const now = 1_000_000;
    const live = {
      id: "build-1:42:abc",
      host: "build-1",
      pid: 42,
      concurrency: 2,
      startedAt: 1,
      heartbeatAt: now - 1_000,
    };
    const dead = {
      id: "build-2:7:xyz",
      host: "build-2",
      pid: 7,
      concurrency: 1,
      startedAt: 2,
      heartbeatAt: now - WORKER_STALE_MS - 1,
    };
    await store.saveWorker(live);
    await store.saveWorker(dead);
    for (let i = 0; i < 3; i++) await store.createTask(newTask(), i);
    await store.claimTask({ workerId: live.id, leaseMs: 5_000, now });
    await store.claimTask({ workerId: live.id, leaseMs: 5_000, now });
    await store.claimTask({ workerId: dead.id, leaseMs: 5_000, now });

    expect(await listWorkers(store, now)).toEqual([{ ...live, tasks: ["t-1", "t-2"], live: true }]);
    expect((await listWorkers(store, now, { all: true })).map((w) => [w.id, w.tasks, w.live])).toEqual([
      [live.id, ["t-1", "t-2"], true],
      [dead.id, ["t-3"], false],
    ]);
    expect(await taskHolders(store)).toEqual([
      { taskId: "t-1", workerId: live.id, host: "build-1", leaseExpiresAt: now + 5_000 },
      { taskId: "t-2", workerId: live.id, host: "build-1", leaseExpiresAt: now + 5_000 },
      { taskId: "t-3", workerId: dead.id, host: "build-2", leaseExpiresAt: now + 5_000 },
    ]);
  });

  it("reads the host out of a worker id, IPv6-style colons included", () => {
    expect(hostOf("build-1:42:abc")).toBe("build-1");
    expect(hostOf("fe80::1:42:abc")).toBe("fe80::1");
    expect(hostOf("custom")).toBe("custom");
  });
});
