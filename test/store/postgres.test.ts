/**
 * The Store contract on a real PostgreSQL server (test/helpers/pg-server.ts), plus what only the
 * PostgreSQL store has: leases on the server's clock, migrations under an advisory lock, a newer
 * schema refused, login and connection failures named in one line, NOTIFY wake-ups.
 */
import { connect, createServer, type Socket } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { FixpointError } from "../../src/errors.js";
import { PG_LATEST_SCHEMA_VERSION, PG_MIGRATIONS } from "../../src/store/postgres/migrations/index.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { claimSql } from "../../src/store/postgres/sql.js";
import { serverUrlWith, type TestDatabase, testDatabase } from "../helpers/pg-server.js";
import { runStoreContract } from "./contract.js";
import { pgFixtures } from "./pg-fixtures.js";
import { newTask } from "./samples.js";

/**
 * One database for the whole contract suite, emptied between tests (TRUNCATE … RESTART IDENTITY
 * is far cheaper than a CREATE DATABASE and a migration per test); dropped after the file.
 */
let contractDb: TestDatabase | undefined;
afterAll(async () => {
  await contractDb?.drop();
});

runStoreContract("postgresql", async () => {
  if (contractDb === undefined) contractDb = await testDatabase();
  else
    await sql(
      contractDb.url,
      "TRUNCATE tasks, runs, stage_executions, events, findings, checkpoints, markers, workers, learnings RESTART IDENTITY CASCADE",
    );
  const store = await openPostgresStore(contractDb.url, { leaseClock: "caller" });
  return { store, cleanup: () => store.close() };
});

const { freshDb, open } = pgFixtures();

async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe("PostgreSQL store", () => {
  it("measures leases on the server's clock: a worker whose clock runs an hour ahead cannot take a live lease", async () => {
    const db = await freshDb();
    const store = await open(db.url);
    await store.createTask(newTask(), Date.now());
    const before = Date.now();
    const a = await store.claimTask({ workerId: "a", leaseMs: 60_000, now: 0 });
    // The caller said "now = 0"; the lease still ends a minute after the server's now.
    expect(a?.leaseExpiresAt).toBeGreaterThanOrEqual(before + 60_000 - 5_000);
    expect(a?.leaseExpiresAt).toBeLessThanOrEqual(Date.now() + 60_000 + 5_000);
    const skewed = Date.now() + 3_600_000;
    expect(await store.claimTask({ workerId: "b", leaseMs: 60_000, now: skewed })).toBeNull();
    expect(await store.heartbeat({ taskId: "t-1", workerId: "a", token: a?.leaseToken ?? 0 }, 1, 0)).toBe(
      true,
    );
    await new Promise((r) => setTimeout(r, 30));
    // With a 1 ms lease renewed on the server's clock, the lease is now over: b takes it.
    expect((await store.claimTask({ workerId: "b", leaseMs: 60_000, now: 0 }))?.workerId).toBe("b");
  });

  it("migrates once when several workers open a new database at the same time", async () => {
    const db = await freshDb();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(db.url)));
    const rows = await sql(db.url, "SELECT version FROM fixpoint_schema_migrations ORDER BY version");
    expect(rows.rows.map((r) => Number(r.version))).toEqual(PG_MIGRATIONS.map((m) => m.version));
    await stores[0]?.createTask(newTask(), 1);
    expect(await stores[3]?.countTasks()).toBe(1);
  });

  it("refuses a database migrated by a newer fixpoint, saying so in one line", async () => {
    const db = await freshDb();
    await (await open(db.url)).close();
    await sql(
      db.url,
      "INSERT INTO fixpoint_schema_migrations (version, name, applied_at) VALUES ($1, 'future', 0)",
      [PG_LATEST_SCHEMA_VERSION + 1],
    );
    const failure = openPostgresStore(db.url);
    await expect(failure).rejects.toMatchObject({ code: "store_version" });
    await expect(failure).rejects.toThrow(
      new RegExp(`has schema version ${PG_LATEST_SCHEMA_VERSION + 1}, which is newer than this fixpoint`),
    );
  });

  it("names a refused login and the setting to fix, without the password", async () => {
    const url = await serverUrlWith("postgres", "wrong-password-xyz");
    const failure = openPostgresStore(url);
    await expect(failure).rejects.toMatchObject({ code: "config" });
    const message = await failure.catch((e: unknown) => (e instanceof FixpointError ? e.message : ""));
    expect(message).toMatch(
      /^PostgreSQL refused the login at postgres:\/\/127\.0\.0\.1:\d+\/postgres \(password authentication failed/,
    );
    expect(message).toContain("FIXPOINT_DATABASE_URL");
    expect(message).not.toContain("wrong-password-xyz");
  });

  it("wakes an idle worker when a task is queued by another process, and polls slowly otherwise", async () => {
    const db = await freshDb();
    const worker = await open(db.url);
    const producer = await open(db.url);
    const quiet = Date.now();
    await worker.waitForWork?.(300);
    expect(Date.now() - quiet).toBeGreaterThanOrEqual(250);

    const started = Date.now();
    const woken = worker.waitForWork?.(20_000);
    await new Promise((r) => setTimeout(r, 100));
    await producer.createTask(newTask(), 1);
    await woken;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await worker.claimTask({ workerId: "w", leaseMs: 1000, now: 1 }))?.id).toBe("t-1");

    const aborted = new AbortController();
    const waiting = worker.waitForWork?.(20_000, aborted.signal);
    aborted.abort();
    const t0 = Date.now();
    await waiting;
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it("wakes an idle worker when a held task is put back or re-queued, not when one completes", async () => {
    const db = await freshDb();
    const worker = await open(db.url);
    const holder = await open(db.url);
    for (let i = 0; i < 3; i++) await holder.createTask(newTask(), i);
    const leases = [];
    for (let i = 0; i < 3; i++) {
      const t = await holder.claimTask({ workerId: "holder", leaseMs: 60_000, now: 10 });
      if (t === null) throw new Error("nothing to claim");
      leases.push({ taskId: t.id, workerId: "holder", token: t.leaseToken });
    }
    const [done, putBack, requeued] = leases;
    if (done === undefined || putBack === undefined || requeued === undefined) throw new Error("3 leases");
    await worker.waitForWork?.(300); // connects the listener; the creations came before it

    await holder.releaseTask(done, { status: "completed", finalVerdict: "APPROVED" }, 20);
    const quiet = Date.now();
    await worker.waitForWork?.(1_000);
    expect(Date.now() - quiet).toBeGreaterThanOrEqual(900);

    let started = Date.now();
    let woken = worker.waitForWork?.(20_000);
    await new Promise((r) => setTimeout(r, 100));
    await holder.releaseTask(putBack, { status: "queued" }, 30);
    await woken;
    expect(Date.now() - started).toBeLessThan(5_000);

    await holder.releaseTask(requeued, { status: "failed", reason: "gate" }, 40);
    started = Date.now();
    woken = worker.waitForWork?.(20_000);
    await new Promise((r) => setTimeout(r, 100));
    await holder.updateTask(requeued.taskId, { status: "queued" }, 50);
    await woken;
    expect(Date.now() - started).toBeLessThan(5_000);
    const claimed = [];
    for (let t = await worker.claimTask({ workerId: "w", leaseMs: 1000, now: 60 }); t !== null; ) {
      claimed.push(t.id);
      t = await worker.claimTask({ workerId: "w", leaseMs: 1000, now: 60 });
    }
    expect(claimed.sort()).toEqual([putBack.taskId, requeued.taskId].sort());
  });

  it("claims a task without adding index entries (a HOT update)", async () => {
    const db = await freshDb();
    await (await open(db.url)).createTask(newTask(), 1);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query("BEGIN");
      const claim = claimSql("w", 60_000, 1, "database", undefined);
      expect((await client.query(claim.sql, claim.params.values)).rowCount).toBe(1);
      const stats = await client.query(
        "SELECT pg_stat_get_xact_tuples_updated('tasks'::regclass) AS updated, pg_stat_get_xact_tuples_hot_updated('tasks'::regclass) AS hot",
      );
      expect(stats.rows[0]).toEqual({ updated: "1", hot: "1" });
      await client.query("ROLLBACK");
    } finally {
      await client.end();
    }
  });

  it("gives every task to exactly one of many concurrent claimers", async () => {
    const db = await freshDb();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(db.url, { pool: { max: 4 } })));
    const first = stores[0];
    if (first === undefined) throw new Error("no store");
    for (let i = 0; i < 120; i++) await first.createTask(newTask(), i);
    const claimed: string[] = [];
    await Promise.all(
      stores.flatMap((s, si) =>
        Array.from({ length: 4 }, async (_, slot) => {
          for (;;) {
            const t = await s.claimTask({ workerId: `w${si}-${slot}`, leaseMs: 60_000, now: Date.now() });
            if (t === null) return;
            claimed.push(t.id);
          }
        }),
      ),
    );
    expect(claimed).toHaveLength(120);
    expect(new Set(claimed).size).toBe(120);
  });

  it("keeps working after the server drops its connections (reads are retried)", async () => {
    const db = await freshDb();
    const store = await open(db.url);
    await store.createTask(newTask(), 1);
    expect(await store.countTasks()).toBe(1);
    const name = new URL(db.url).pathname.slice(1);
    await sql(
      db.url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
    expect((await store.getTask("t-1"))?.id).toBe("t-1");
    await store.createTask(newTask(), 2);
    expect(await store.countTasks()).toBe(2);
  });

  it("stores NUL characters from agent output as U+FFFD instead of failing the write", async () => {
    const db = await freshDb();
    const store = await open(db.url);
    const t = await store.createTask(newTask({ title: "a\0b", meta: { origin: "x\0y" } }), 1);
    expect(t.title).toBe("a\uFFFDb");
    expect(t.meta.origin).toBe("x\uFFFDy");
    await store.setMarker("k", { text: "\\u0000 stays literal", nul: "\0" }, 1);
    expect(await store.getMarker("k")).toEqual({ text: "\\u0000 stays literal", nul: "\uFFFD" });
  });

  it("reads hand-edited metadata tolerantly: wrong types dropped, unknown keys kept", async () => {
    const db = await freshDb();
    const store = await open(db.url);
    await store.createTask(newTask(), 1);
    await sql(
      db.url,
      `UPDATE tasks SET meta = '{"prNumber":"twelve","future":{"a":1},"origin":"cli"}', budget = '[1]'`,
    );
    const t = await store.getTask("t-1");
    expect(t?.meta).toEqual({ future: { a: 1 }, origin: "cli" });
    expect(t?.budget).toEqual({});
  });
});

/** A loopback TCP proxy in front of the server whose link can be cut and restored. */
async function cuttableProxy(
  target: URL,
): Promise<{ url: string; cut: () => void; restore: () => void; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let up = true;
  const server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const url = new URL(target);
  url.port = String(typeof address === "object" && address !== null ? address.port : 0);
  return {
    url: url.toString(),
    cut: () => {
      up = false;
      for (const s of sockets) s.destroy();
    },
    restore: () => {
      up = true;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe("PostgreSQL store, connection lost", () => {
  it("reconnects with backoff: a write made while the link is down lands once, when it is back", async () => {
    const db = await freshDb();
    const proxy = await cuttableProxy(new URL(db.url));
    try {
      const store = await open(proxy.url);
      await store.createTask(newTask(), 1);
      proxy.cut();
      const write = store.createTask(newTask({ title: "during the outage" }), 2);
      await new Promise((r) => setTimeout(r, 700));
      proxy.restore();
      expect((await write).id).toBe("t-2");
      expect((await store.listTasks()).map((t) => t.title)).toEqual([newTask().title, "during the outage"]);
      proxy.cut();
      proxy.restore();
      // Reads after a cut are simply asked again.
      expect(await store.countTasks()).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it("a worker cut off from the database loses its lease to another and, back, writes nothing", async () => {
    const db = await freshDb();
    const proxy = await cuttableProxy(new URL(db.url));
    try {
      const cutOff = await open(proxy.url);
      const other = await open(db.url);
      const t = await other.createTask(newTask(), 1);
      const run = await other.createRun(t.id, "start", {}, 1);
      const held = await cutOff.claimTask({ workerId: "a", leaseMs: 500, now: Date.now() });
      expect(held?.id).toBe(t.id);
      proxy.cut();
      // While a is unreachable its lease runs out on the server's clock and b takes the task.
      let taken = null;
      for (let i = 0; i < 50 && taken === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
        taken = await other.claimTask({ workerId: "b", leaseMs: 60_000, now: Date.now() });
      }
      expect(taken?.workerId).toBe("b");
      proxy.restore();
      const lease = { taskId: t.id, workerId: "a", token: held?.leaseToken ?? 0 };
      expect(await cutOff.heartbeat(lease, 500, Date.now())).toBe(false);
      await expect(
        cutOff.transaction(
          (tx) => tx.appendEvents([{ taskId: t.id, runId: run.id, type: "late", data: {} }], 2),
          {
            fence: lease,
          },
        ),
      ).rejects.toMatchObject({ code: "lease_lost" });
      await expect(
        cutOff.commitStage({
          taskId: t.id,
          runId: run.id,
          stage: null,
          checkpoint: { state: { by: "a" } },
          findings: [],
          events: [],
          task: { status: "failed" },
          now: 3,
          fence: lease,
        }),
      ).rejects.toMatchObject({ code: "lease_lost" });
      await cutOff.releaseTask(lease, { status: "failed" }, 4);
      expect(await other.listEvents(t.id)).toEqual([]);
      expect(await other.getCheckpoint(run.id)).toBeNull();
      expect(await other.getTask(t.id)).toMatchObject({ status: "running", workerId: "b" });
    } finally {
      await proxy.close();
    }
  });

  it("names the cause and the setting when the server stays unreachable", async () => {
    const db = await freshDb();
    const proxy = await cuttableProxy(new URL(db.url));
    const store = await open(proxy.url);
    await proxy.close();
    const failure = store.countTasks();
    await expect(failure).rejects.toMatchObject({ code: "store", retryable: true });
    await expect(failure).rejects.toThrow(
      /^cannot reach PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/\w+ \(ECONNREFUSED\) while counting tasks; start the server or fix database/,
    );
  }, 60_000);
});
