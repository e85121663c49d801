/**
 * A worker cut off from PostgreSQL in the middle of a fenced transaction: it holds the task's row
 * locked on the server (`SELECT … FOR UPDATE`), and no claim (`SKIP LOCKED`) could take the task
 * while that session lives — the partition would outlast the lease forever. The server ends a
 * session idle inside a transaction (IDLE_IN_TRANSACTION_MS), so another worker takes the task
 * soon after its lease ended; the cut-off transaction fails on its statement timeout and, after
 * the heal, nothing of it is in the database.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { IDLE_IN_TRANSACTION_MS } from "../../src/store/postgres/connection.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { databaseForTest } from "../helpers/pg-database.js";
import { proxiedDatabase } from "../helpers/tcp-proxy.js";
import { newTask } from "../store/samples.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a partition in the middle of a transaction", () => {
  it("does not keep the task locked past the server's idle-in-transaction limit, and writes nothing", async () => {
    const db = await databaseForTest();
    const { proxy, url: viaProxy } = await proxiedDatabase(db.url, 2000);

    const b = await openPostgresStore(db.url);
    onTestFinished(() => b.close());
    const a = await openPostgresStore(viaProxy, {
      pool: { connectAttempts: 1, connectTimeoutMs: 2000 },
    });
    onTestFinished(() => a.close());
    const task = await b.createTask(newTask(), Date.now());
    const held = await a.claimTask({ workerId: "a:1:x", leaseMs: 500, now: Date.now() });
    if (held === null) throw new Error("A did not claim");
    const lease = { taskId: task.id, workerId: "a:1:x", token: held.leaseToken };

    const started = Date.now();
    const cutOff = a
      .transaction(
        async (tx) => {
          // The row is locked (the fence); now the line goes dead before the write.
          proxy.partition();
          await tx.appendEvents([{ taskId: task.id, runId: null, type: "late.write", data: {} }], Date.now());
        },
        { fence: lease },
      )
      .then(
        () => "committed",
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );

    let claimed: Awaited<ReturnType<typeof b.claimTask>> = null;
    while (claimed === null && Date.now() - started < IDLE_IN_TRANSACTION_MS + 15_000) {
      await sleep(250);
      claimed = await b.claimTask({ workerId: "b:1:y", leaseMs: 60_000, now: Date.now() });
    }
    const waited = Date.now() - started;
    expect(claimed?.id).toBe(task.id);
    expect(claimed?.leaseToken).toBe(held.leaseToken + 1);
    expect(waited).toBeLessThan(IDLE_IN_TRANSACTION_MS + 8_000);
    expect(await cutOff).toMatch(/lost the connection to PostgreSQL .* \(Query read timeout\)/);

    proxy.heal();
    await sleep(500);
    expect((await b.listEvents(task.id)).map((e) => e.type)).not.toContain("late.write");
    expect((await b.getTask(task.id))?.workerId).toBe("b:1:y");
  }, 60_000);
});
