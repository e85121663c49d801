/**
 * A network partition between one worker and the database, on any machine: worker A reaches
 * PostgreSQL only through a loopback proxy (test/helpers/tcp-proxy.ts) that can stop moving bytes
 * while keeping every socket open — a pulled cable, not a reset. Worker B, in another clone of the
 * same bare repository, connects directly.
 *
 * A claims the task and is in the middle of stage two when the line is cut. A's lease ends on the
 * server's clock; A notices by its own clock (it cannot ask the database), stops the stage and
 * says so in one line. B takes the task over and finishes it APPROVED. Then the line comes back:
 * whatever A had sent into the partition arrives, and A writes nothing about that task, pushes
 * nothing, and goes on to run the next task queued.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { exited, git, runCli, startCli, waitFor } from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";
import { databaseForTest } from "../helpers/pg-database.js";
import { proxiedDatabase } from "../helpers/tcp-proxy.js";
import { branchCommits, type Invocation, taskBranches, twoMachines } from "./project.js";

const LEASE_MS = "3000";
const STAGES = ["one", "two", "three"];

/** Every row the store holds about `taskId`, as text: equal texts mean nothing was written. */
async function taskRows(url: string, taskId: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, unknown[]> = {};
    const byTask = [
      "runs",
      "stage_executions",
      "checkpoints",
      "events",
      "findings",
      "artifacts",
      "agent_groups",
    ];
    out.tasks = (await client.query("SELECT * FROM tasks WHERE id = $1", [taskId])).rows;
    for (const table of byTask) {
      out[table] = (
        await client.query(`SELECT * FROM ${table} WHERE task_id = $1 ORDER BY 1, 2`, [taskId])
      ).rows;
    }
    out.markers = (
      await client.query("SELECT * FROM markers WHERE key LIKE $1 ORDER BY key", [`%${taskId}:%`])
    ).rows;
    return JSON.stringify(out);
  } finally {
    await client.end();
  }
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe("a worker cut off from the database", () => {
  it("loses its lease, another worker finishes the task, and when the line comes back it writes and pushes nothing", async () => {
    const db = await databaseForTest();
    // A short statement timeout (the default is 30 s), so the partition outlasts it: A's claims
    // then fail, and it must keep trying until the line comes back.
    const { proxy, url: viaProxy } = await proxiedDatabase(db.url, 1500);

    const { bare, a, b, counts, env } = twoMachines(db.url);
    expect(runCli(["add", "task number 1"], { cwd: a, env }).code).toBe(0);

    const args = ["work", "--watch", "--lease-ms", LEASE_MS];
    const envA = { ...env, FIXPOINT_DATABASE_URL: viaProxy, FIXPOINT_TEST_HOLD_STAGE: "two" };
    const workerA = startCli(args, { cwd: a, env: envA });
    let workerB: ReturnType<typeof startCli> | undefined;
    try {
      await waitFor(() => existsSync(`${counts}.holding`), 30_000, "worker A to be in stage two");
      expect(readFileSync(`${counts}.holding`, "utf8")).toBe("t-1");
      const [branch] = taskBranches(bare);
      if (branch === undefined) throw new Error("A did not push stage one");
      const pushedByA = git(bare, "rev-parse", branch);

      proxy.partition();
      // A says it lost the lease once its own clock says the lease is over, without the database.
      await waitFor(() => /t-1: lease lost/.test(workerA.output()), 15_000, "worker A to give the lease up");
      expect(workerA.exitCode).toBeNull();

      workerB = startCli(args, { cwd: b, env });
      const done = async () =>
        (await query<{ status: string }>(db.url, "SELECT status FROM tasks WHERE id = 't-1'", []))[0]
          ?.status === "completed";
      await waitForAsync(done, 40_000, "worker B to finish t-1");
      // A, still cut off, has given up statements and says once that it cannot claim.
      await waitFor(() => /cannot claim tasks/.test(workerA.output()), 20_000, "worker A to fail a claim");
      const before = await taskRows(db.url, "t-1");
      const remoteBefore = git(bare, "rev-parse", branch);
      expect(remoteBefore).not.toBe(pushedByA);
      workerB.kill("SIGTERM");
      expect(await exited(workerB)).toBe(0);

      // The line comes back: what A sent into the partition arrives now.
      proxy.heal();
      writeFileSync(`${counts}.release`, "");
      // A keeps working: the next task queued is its (B is gone).
      expect(runCli(["add", "task number 2"], { cwd: b, env }).code).toBe(0);
      await waitForAsync(
        async () =>
          (await query<{ status: string }>(db.url, "SELECT status FROM tasks WHERE id = 't-2'", []))[0]
            ?.status === "completed",
        40_000,
        "worker A to run t-2 after the partition",
      );

      // Nothing about t-1 was written after B finished it: no row, event, stage, finding, artifact.
      expect(await taskRows(db.url, "t-1")).toBe(before);
      // A did not push: the remote branch is B's, each stage's commit once.
      expect(git(bare, "rev-parse", branch)).toBe(remoteBefore);
      const commits = branchCommits(bare, branch);
      expect(commits).toHaveLength(STAGES.length);
      expect(new Set(commits.map((c) => c.patchId)).size).toBe(STAGES.length);
      for (const stage of STAGES)
        expect(git(bare, "show", `${branch}:t-1-${stage}.txt`)).toBe(`t-1 ${stage}\n`);

      const [t1] = await query<{ final_verdict: string; lease_token: number; worker_id: string | null }>(
        db.url,
        "SELECT final_verdict, lease_token, worker_id FROM tasks WHERE id = 't-1'",
        [],
      );
      expect(t1?.final_verdict).toBe("APPROVED");
      // Claimed twice: by A, then once by B after A's lease ended on the server's clock.
      expect(Number(t1?.lease_token)).toBe(2);
      const finished = await query(
        db.url,
        "SELECT id FROM events WHERE task_id = 't-1' AND type = 'task.finished'",
        [],
      );
      expect(finished).toHaveLength(1);
      const stages = await query<{ stage_id: string }>(
        db.url,
        "SELECT stage_id FROM stage_executions WHERE task_id = 't-1' ORDER BY id",
        [],
      );
      expect(stages.map((s) => s.stage_id).filter((s) => STAGES.includes(s))).toEqual(STAGES);

      // Stage one ran on A, stage two on A (cut off) and again on B, stage three on B only.
      const runs = readJsonLines<Invocation>(counts).filter((r) => r.task === "t-1");
      expect(runs.map((r) => r.stage)).toEqual(["one", "two", "two", "three"]);
      expect(runs.map((r) => r.pid === workerA.pid)).toEqual([true, true, false, false]);
      const t2 = readJsonLines<Invocation>(counts).filter((r) => r.task === "t-2");
      expect(t2.map((r) => r.pid === workerA.pid)).toEqual([true, true, true]);

      // One clear line about the lost lease, one about the store it could not reach, and no stack trace.
      const outA = workerA.output();
      expect(outA.match(/cannot claim tasks: lost the connection to PostgreSQL/g) ?? []).toHaveLength(1);
      expect(outA).toContain("the store answers again");
      expect(outA.match(/t-1: lease lost/g) ?? []).toHaveLength(1);
      expect(outA).toMatch(/t-1: lease lost: not renewed for 3\.0 s/);
      expect(outA).not.toMatch(/\n\s+at .+:\d+:\d+/);
      workerA.kill("SIGTERM");
      expect(await exited(workerA)).toBe(0);
    } finally {
      proxy.heal();
      writeFileSync(`${counts}.release`, "");
      workerA.kill("SIGKILL");
      workerB?.kill("SIGKILL");
      await Promise.all([exited(workerA), workerB ? exited(workerB) : undefined]);
    }
  }, 120_000);
});

async function waitForAsync(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
