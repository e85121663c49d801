/**
 * Many machines under fire: two clones of one bare repository, one PostgreSQL store, one
 * `fixpoint work --concurrency 2` per clone, and SIGKILLs at random moments (a seeded schedule:
 * FIXPOINT_CHAOS_SEED replays one), each killed worker started again a moment later in its own
 * clone. Every stage takes a random time and leaves half-done work in the worktree, so kills land
 * before, in and after stages, pushes and checkpoints. Afterwards:
 * - every task ended APPROVED, with one `task.finished`;
 * - every stage finished once (one `stage.finished` per task and stage);
 * - a stage ran again only when the worker that had run it was killed;
 * - every remote task branch holds each stage's commit exactly once, with the finished content.
 */
import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../src/util/seeded-random.js";
import { exited, git, runCli, startCli, waitFor } from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";
import { databaseForTest } from "../helpers/pg-database.js";
import { branchCommits, type Invocation, taskBranches, twoMachines } from "./project.js";

const TASKS = 8;
const KILLS = 5;
const STAGES = ["one", "two", "three"];

interface TaskJson {
  id: string;
  status: string;
  final_verdict: string | null;
}

describe("two clones, one PostgreSQL store, workers killed at random moments", () => {
  it("every task ends APPROVED once, no finished stage runs again, each commit once on the remote", async () => {
    const seed = Number(process.env.FIXPOINT_CHAOS_SEED ?? Date.now() % 1_000_000);
    const random = seededRandom(seed);
    const db = await databaseForTest();
    const { bare, a, b, counts, env } = twoMachines(db.url, { FIXPOINT_TEST_STAGE_MS: "1500" });
    const clones = [a, b];
    for (let i = 1; i <= TASKS; i++) {
      expect(runCli(["add", `task number ${i}`], { cwd: clones[i % 2] as string, env }).code).toBe(0);
    }

    const args = ["work", "--watch", "--concurrency", "2", "--lease-ms", "3000"];
    const workers: (ChildProcess & { output: () => string })[] = clones.map((cwd) =>
      startCli(args, { cwd, env }),
    );
    const killed = new Set<number>();
    const status = () =>
      JSON.parse(runCli(["status", "--json"], { cwd: clones[0] as string, env }).stdout) as TaskJson[];
    const done = () => {
      const tasks = status();
      return tasks.length === TASKS && tasks.every((t) => t.status !== "queued" && t.status !== "running");
    };
    const schedule: string[] = [];
    try {
      for (let k = 0; k < KILLS && !done(); k++) {
        await new Promise((r) => setTimeout(r, 300 + random() * 1200));
        const which = random() < 0.5 ? 0 : 1;
        const victim = workers[which] as ChildProcess;
        schedule.push(`kill ${which === 0 ? "a" : "b"} pid ${victim.pid}`);
        if (victim.pid !== undefined) killed.add(victim.pid);
        victim.kill("SIGKILL");
        await exited(victim);
        await new Promise((r) => setTimeout(r, random() * 500));
        workers[which] = startCli(args, { cwd: clones[which] as string, env });
      }
      console.log(`pg chaos: seed ${seed}; ${schedule.join(", ")}`);
      await waitFor(done, 120_000, `every task to settle (seed ${seed}; ${schedule.join(", ")})`);

      const tasks = status();
      const why = `seed ${seed}; ${schedule.join(", ")}`;
      expect(
        tasks.map((t) => [t.id, t.status, t.final_verdict]),
        why,
      ).toEqual(tasks.map((t) => [t.id, "completed", "APPROVED"]));

      const runs = readJsonLines<Invocation>(counts);
      for (const t of tasks) {
        const log = runCli(["logs", t.id, "--json"], { cwd: clones[1] as string, env }).stdout;
        expect(log.match(/"type":\s*"task\.finished"/g) ?? [], `${t.id}: ${why}`).toHaveLength(1);
        const finished = [...log.matchAll(/"type":\s*"stage\.finished"[^\n]*?"stage":\s*"(\w+)"/g)].map(
          (m) => m[1],
        );
        const mine = runs.filter((r) => r.task === t.id);
        for (const stage of STAGES) {
          const ran = mine.filter((r) => r.stage === stage);
          expect(ran.length, `${t.id} ${stage} never ran: ${why}`).toBeGreaterThan(0);
          // Every run of a stage but the last was cut short by a kill of the worker running it.
          for (const early of ran.slice(0, -1)) {
            expect(
              killed.has(early.pid),
              `${t.id} ${stage} ran again after pid ${early.pid} (not killed): ${why}`,
            ).toBe(true);
          }
        }
        if (finished.length > 0) {
          for (const stage of STAGES) {
            expect(
              finished.filter((s) => s === stage),
              `${t.id} stage.finished for ${stage}: ${why}`,
            ).toHaveLength(1);
          }
        }
      }

      const branches = taskBranches(bare);
      expect(branches, why).toHaveLength(TASKS);
      for (const branch of branches) {
        const id = /^fixpoint\/(t-\d+)/.exec(branch)?.[1] as string;
        const commits = branchCommits(bare, branch);
        expect(new Set(commits.map((c) => c.patchId)).size, `${branch} duplicates: ${why}`).toBe(
          commits.length,
        );
        for (const stage of STAGES) {
          expect(git(bare, "show", `${branch}:${id}-${stage}.txt`), `${branch} ${stage}: ${why}`).toBe(
            `${id} ${stage}\n`,
          );
        }
      }
    } finally {
      for (const w of workers) w.kill("SIGKILL");
      await Promise.all(workers.map((w) => exited(w)));
    }
  }, 200_000);
});

/**
 * The same hand-over at each named crash point (src/engine/crash-points.ts) of the second stage:
 * clone A's worker dies there, clone B's finishes the task. The work of every stage is on the
 * remote branch once, and only the stage A died in may run again.
 */
describe("a worker killed at each crash point, the other clone finishing, on PostgreSQL", () => {
  const points = [
    "claimed:1",
    "run-started:1",
    "stage-started:2",
    "agent-exited:2",
    "commit-made:2",
    "checkpoint-written:2",
    "pushed:2",
    "verdict-written:1",
  ];
  it.each(points)(
    "%s",
    async (point) => {
      const db = await databaseForTest();
      const { bare, a, b, counts, env } = twoMachines(db.url);
      expect(runCli(["add", "three steps"], { cwd: a, env }).code).toBe(0);
      const first = startCli(["work", "--lease-ms", "2000"], {
        cwd: a,
        env: { ...env, FIXPOINT_CRASH_AT: point },
      });
      await exited(first);
      expect(first.signalCode, first.output()).toBe("SIGKILL");
      // Past the dead worker's lease (2 s from its last renewal), so the next worker may claim.
      await new Promise((r) => setTimeout(r, 2200));
      const second = runCli(["work"], { cwd: b, env, timeoutMs: 60_000 });
      expect(second.code, second.stdout + second.stderr).toBe(0);
      const tasks = JSON.parse(runCli(["status", "--json"], { cwd: b, env }).stdout) as TaskJson[];
      expect(tasks.map((t) => [t.status, t.final_verdict])).toEqual([["completed", "APPROVED"]]);

      const ran = readJsonLines<Invocation>(counts).map((r) => r.stage);
      for (const stage of STAGES) {
        const n = ran.filter((s) => s === stage).length;
        expect(n, `${stage} ran ${n} times: ${ran.join(",")}`).toBeGreaterThanOrEqual(1);
        if (!point.endsWith(":2") || stage !== "two") expect(n, `${stage}: ${ran.join(",")}`).toBe(1);
      }
      const [branch] = taskBranches(bare);
      const commits = branchCommits(bare, branch as string);
      expect(new Set(commits.map((c) => c.patchId)).size).toBe(commits.length);
      for (const stage of STAGES) {
        expect(git(bare, "show", `${branch}:t-1-${stage}.txt`), stage).toBe(`t-1 ${stage}\n`);
      }
    },
    90_000,
  );
});
