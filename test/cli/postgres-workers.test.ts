/**
 * `fixpoint work` on a PostgreSQL store: two worker processes share one queue (each task runs
 * exactly once), `workers` lists them while they run and forgets them when they stop, and the
 * `--database` flag, `store copy` and `status` work from the command line.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { exited, FIXTURE_AGENTS, isolatedEnv, runCli, startCli, tempDir } from "../helpers/cli.js";
import { type TestDatabase, testDatabase } from "../helpers/pg-server.js";

const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const d of databases.splice(0)) await d.drop();
});

function project(extraEnv: Record<string, string> = {}): {
  repo: string;
  env: NodeJS.ProcessEnv;
  counts: string;
} {
  const root = tempDir();
  const repo = join(root, "repo");
  const counts = join(root, "counts.jsonl");
  const env = isolatedEnv(root, { FIXPOINT_TEST_COUNTS: counts, ...extraEnv });
  createDemoRepo(repo);
  const script = JSON.stringify(join(FIXTURE_AGENTS, "quick-implementer.mjs"));
  writeFileSync(
    join(repo, "fixpoint.kdl"),
    `agent "implementer" backend="scripted" script=${script} timeout="1m"\nagent "fixer" backend="scripted" script=${script} timeout="1m"\n`,
  );
  return { repo, env, counts };
}

describe("workers on a PostgreSQL store", () => {
  it("two `fixpoint work` processes share one queue: 10 tasks, each run exactly once, all approved", async () => {
    const db = await testDatabase();
    databases.push(db);
    const { repo, env, counts } = project({ FIXPOINT_DATABASE_URL: db.url });
    for (let i = 1; i <= 10; i++) {
      const add = runCli(["add", `task number ${i}`, "--no-review"], { cwd: repo, env });
      expect(add.stderr).toBe("");
      expect(add.code).toBe(0);
    }
    const a = startCli(["work", "--concurrency", "2"], { cwd: repo, env });
    const b = startCli(["work", "--concurrency", "2"], { cwd: repo, env });
    const [ca, cb] = await Promise.all([exited(a), exited(b)]);
    expect([ca, cb]).toEqual([0, 0]);

    const runs = readFileSync(counts, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { task: string; pid: number });
    const byTask = new Map<string, number>();
    for (const r of runs) byTask.set(r.task, (byTask.get(r.task) ?? 0) + 1);
    expect(byTask.size).toBe(10);
    expect([...byTask.values()].every((n) => n === 1)).toBe(true);

    const status = JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout) as {
      status: string;
      final_verdict: string;
    }[];
    expect(status).toHaveLength(10);
    expect(status.every((t) => t.status === "completed" && t.final_verdict === "APPROVED")).toBe(true);
    // Both stopped cleanly, so neither is listed any more.
    expect(runCli(["workers"], { cwd: repo, env }).stdout).toBe("no live workers\n");
  }, 180_000);

  it("lists a watching worker with its host and pid while it runs (selected with --database)", async () => {
    const db = await testDatabase();
    databases.push(db);
    const { repo, env } = project();
    const worker = startCli(["--database", db.url, "work", "--watch"], { cwd: repo, env });
    try {
      let listed: { id: string; host: string; pid: number; tasks: string[] }[] = [];
      for (let i = 0; i < 100 && listed.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const out = runCli(["--database", db.url, "workers", "--json"], { cwd: repo, env });
        if (out.code === 0) listed = JSON.parse(out.stdout) as typeof listed;
      }
      expect(listed).toHaveLength(1);
      expect(listed[0]?.pid).toBe(worker.pid);
      expect(listed[0]?.tasks).toEqual([]);
      const table = runCli(["--database", db.url, "workers"], { cwd: repo, env }).stdout;
      expect(table).toMatch(/^WORKER\s+HOST\s+PID\s+TASKS\s+LAST HEARTBEAT\n/);
      expect(table).toContain(` ${worker.pid} `);
    } finally {
      worker.kill("SIGTERM");
      await exited(worker);
    }
  }, 120_000);

  it("store copy moves a SQLite project's tasks to PostgreSQL, and the project then reads them there", () => {
    const { repo, env } = project();
    expect(runCli(["add", "kept across the move", "--no-review"], { cwd: repo, env }).code).toBe(0);
    return testDatabase().then((db) => {
      databases.push(db);
      const copy = runCli(["store", "copy", "--from", "sqlite:.fixpoint/fixpoint.db", "--to", db.url], {
        cwd: repo,
        env,
      });
      expect(copy.stderr).toBe("");
      expect(copy.stdout).toMatch(
        /^copied .*fixpoint\.db → postgres:\/\/127\.0\.0\.1:\d+\/\w+: 1 tasks, 0 runs/,
      );
      expect(copy.stdout).not.toContain("fixpoint-test@");
      const status = runCli(["--database", db.url, "status"], { cwd: repo, env });
      expect(status.stdout).toContain("kept across the move");
      const doctor = runCli(["--database", db.url, "doctor"], { cwd: repo, env });
      expect(doctor.stdout).toMatch(/postgres:\/\/127\.0\.0\.1:\d+\/\w+ opens/);
      expect(doctor.stdout + doctor.stderr).not.toContain("fixpoint-test@");
      const again = runCli(["store", "copy", "--from", "sqlite:.fixpoint/fixpoint.db", "--to", db.url], {
        cwd: repo,
        env,
      });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain("already holds 1 task(s)");
    });
  }, 120_000);
});
