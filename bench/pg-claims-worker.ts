/**
 * One worker process of the PostgreSQL claims benchmark (bench/pg-claims.ts). Usage:
 * `node pg-claims-worker.js <fixpoint|graphile|pgboss> <url> <index>`. It connects, prints
 * "ready", waits for "go" on stdin, takes jobs until the queue is empty (each claim followed by
 * its completion), and prints one JSON line: the ids it took and the CPU milliseconds it spent
 * from "go" on.
 */
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Logger, runOnce } from "graphile-worker";
import pg from "pg";
import PgBoss from "pg-boss";
import type { Lease, TaskPatch } from "../src/domain/store.js";
import type { Task } from "../src/domain/types.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";

/** The same name in bench/pg-claims.ts, which fills the queue. */
const PGBOSS_QUEUE = "bench";

let cpuAtGo: NodeJS.CpuUsage | undefined;

async function waitForGo(): Promise<void> {
  process.stdout.write("ready\n");
  const lines = createInterface({ input: process.stdin });
  const [line] = (await once(lines, "line")) as [string];
  lines.close();
  if (line.trim() !== "go") throw new Error(`expected "go", got ${line}`);
  cpuAtGo = process.cpuUsage();
}

async function fixpoint(url: string, index: number): Promise<string[]> {
  const store = await openPostgresStore(url, { pool: { max: 1 } });
  const taken: string[] = [];
  await waitForGo();
  const workerId = `bench:${process.pid}:${index}`;
  // As `fixpoint work`'s slot does (engine/worker.ts): the finished task's release goes with the
  // next claim, one statement; the last one is released on its own.
  let done: Lease | null = null;
  const completed: TaskPatch = { status: "completed", finalVerdict: "APPROVED" };
  for (;;) {
    const claim = { workerId, leaseMs: 60_000, now: Date.now() };
    const t: Task | null =
      done === null
        ? await store.claimTask(claim)
        : await store.releaseAndClaim({ lease: done, patch: completed }, claim);
    done = null;
    if (t === null) break;
    taken.push(t.id);
    done = { taskId: t.id, workerId, token: t.leaseToken };
  }
  await store.close();
  return taken;
}

async function graphile(url: string): Promise<string[]> {
  const pgPool = new pg.Pool({ connectionString: url, max: 2 });
  await pgPool.query("SELECT 1");
  const taken: string[] = [];
  await waitForGo();
  await runOnce({
    pgPool,
    concurrency: 1,
    noHandleSignals: true,
    logger: new Logger(() => () => undefined),
    taskList: {
      bench: async (payload) => {
        const i = typeof payload === "object" && payload !== null && "i" in payload ? String(payload.i) : "?";
        taken.push(i);
      },
    },
  });
  await pgPool.end();
  return taken;
}

async function pgboss(url: string): Promise<string[]> {
  const boss = new PgBoss({
    connectionString: url,
    max: 2,
    supervise: false,
    schedule: false,
    migrate: false,
  });
  boss.on("error", () => undefined);
  await boss.start();
  const taken: string[] = [];
  await waitForGo();
  for (;;) {
    const [job] = await boss.fetch<{ i: number }>(PGBOSS_QUEUE);
    if (job === undefined) break;
    taken.push(String(job.data.i));
    await boss.complete(PGBOSS_QUEUE, job.id);
  }
  await boss.stop({ graceful: false, wait: false });
  return taken;
}

async function main(): Promise<void> {
  const [system, url, index] = process.argv.slice(2);
  if (url === undefined) throw new Error("usage: pg-claims-worker <fixpoint|graphile|pgboss> <url> <index>");
  const taken =
    system === "fixpoint"
      ? await fixpoint(url, Number(index))
      : system === "graphile"
        ? await graphile(url)
        : await pgboss(url);
  const cpu = process.cpuUsage(cpuAtGo);
  process.stdout.write(`${JSON.stringify({ ids: taken, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
