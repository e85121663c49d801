/**
 * The commands that restart or stop a task, killed with SIGKILL at the named crash points and at
 * random moments (docs/reliability.md): `resume --feedback` and `retry --force` of an approved
 * task, and `cancel` of a running one. After a new worker, a restarted task must end exactly as
 * an uninterrupted restart does — same verdict, findings and branch, one restart run, no stage
 * that was recorded as finished run again, the first run's artifacts untouched — and a cancelled
 * task must stay cancelled with nothing run for it after the cancel.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, runCli, startCli, waitFor } from "../helpers/cli.js";
import { createDemoTask, type DemoTask } from "../helpers/demo-task.js";

type Restart = "resume" | "retry";
const COMMAND: Record<Restart, string[]> = {
  resume: ["resume", "t-1", "--feedback", "Also export a sum() helper from src/stats.js"],
  retry: ["retry", "t-1", "--force"],
};

interface Outcome {
  verdict: string | null;
  status: string;
  findings: string[];
  subjects: string[];
  runs: string[];
}

async function outcome(d: DemoTask): Promise<Outcome> {
  const store = await d.store();
  try {
    const task = await store.getTask("t-1");
    return {
      verdict: task?.finalVerdict ?? null,
      status: task?.status ?? "missing",
      findings: (await store.listFindings("t-1")).map((f) => `${f.id} ${f.severity} ${f.status} ${f.title}`),
      subjects: d.branchSubjects(),
      runs: (await store.listRuns("t-1")).map((r) => `${r.kind} ${r.status} ${r.finalVerdict ?? "-"}`),
    };
  } finally {
    await store.close();
  }
}

/** Every file the first run left under `.fixpoint/` (reviews, transcripts), with its content. */
function firstRunFiles(d: DemoTask): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/-r1-|\/r1\//.test(p)) out.set(p, readFileSync(p, "utf8"));
    }
  };
  walk(join(d.repo, ".fixpoint"));
  return out;
}

/** An approved task, then the restart command under test. */
function approved(): DemoTask {
  const d = createDemoTask();
  made.push(d);
  const r = runCli(["work"], { cwd: d.repo, env: d.env, timeoutMs: 90_000 });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return d;
}

const made: DemoTask[] = [];
afterAll(() => {
  for (const d of made) d.cleanup();
});

const baseline = new Map<Restart, { outcome: Outcome; calls: number }>();
beforeAll(async () => {
  for (const cmd of ["resume", "retry"] as const) {
    const d = approved();
    const before = d.invocations().length;
    const r = runCli(COMMAND[cmd], { cwd: d.repo, env: d.env, timeoutMs: 90_000 });
    // The demo agents cannot act on free-form feedback or implement twice: such a restart may
    // end needs_human (exit 1); what matters is that an interrupted one ends the same way.
    expect([0, 1], r.stdout + r.stderr).toContain(r.code);
    const o = await outcome(d);
    expect(o.runs).toHaveLength(2);
    baseline.set(cmd, { outcome: o, calls: d.invocations().length - before });
  }
}, 240_000);

// The restart run: fix (or implement, for retry) … gates, three parallel reviews, decide, done.
const POINTS = [
  "claimed",
  "stage-started:1",
  "agent-exited:1",
  "commit-made:1",
  "checkpoint-written:1",
  "agent-exited:3",
  "checkpoint-written:3",
  "verdict-written",
];
// The resumed fix cannot repair free-form feedback, so it commits nothing: no `commit-made` there.
const CASES = (["resume", "retry"] as const).flatMap((cmd) =>
  POINTS.filter((p) => cmd === "retry" || !p.startsWith("commit-made")).map((p) => [cmd, p] as const),
);
/**
 * Killed inside the parallel review block (the third agent's reply saved, or the first reviewer's
 * record written) while its other reviewers may still be working: those had not answered, so
 * they run again — at most two agent calls more than the uninterrupted restart.
 */
const PARALLEL = new Set(["agent-exited:3", "checkpoint-written:3"]);

describe.concurrent("resume --feedback and retry --force SIGKILLed at a crash point, then a new worker", () => {
  it.each(CASES)(
    "%s killed at %s: the uninterrupted restart's verdict, findings and branch; no finished stage rerun",
    async (cmd, at) => {
      const d = approved();
      const files = firstRunFiles(d);
      expect(files.size).toBeGreaterThan(0);
      const callsBefore = d.invocations().length;
      const first = startCli(COMMAND[cmd], { cwd: d.repo, env: { ...d.env, FIXPOINT_CRASH_AT: at } });
      await exited(first);
      expect(first.signalCode, `${cmd} should have died at ${at}:\n${first.output()}`).toBe("SIGKILL");

      const store = await d.store();
      const runs = await store.listRuns("t-1");
      const restartRun = runs[runs.length - 1]?.id;
      const recorded = (await store.listStageExecutions("t-1"))
        .filter((s) => s.runId === restartRun)
        .map((s) => `${s.stageId}@${s.cycle}`);
      await store.close();
      const key = (i: { stage: string; cycle: number }) => `${i.stage}@${i.cycle}`;
      const count = (from: number) => {
        const m = new Map<string, number>();
        for (const i of d.invocations().slice(from)) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
        return m;
      };
      const ranBefore = count(callsBefore);

      const want = baseline.get(cmd);
      if (!want) throw new Error("no baseline");
      const second = runCli(["work"], { cwd: d.repo, env: d.env, timeoutMs: 90_000 });
      // `work` reports a task that ends needs_human with exit 0; the restart command with 1.
      expect([0, 1], second.stdout + second.stderr).toContain(second.code);

      const after = await outcome(d);
      expect(after).toEqual(want.outcome);
      const ranAfter = count(callsBefore);
      for (const k of new Set(recorded)) {
        if (ranBefore.has(k)) expect(ranAfter.get(k), `${k} finished before the kill`).toBe(ranBefore.get(k));
      }
      const extra = d.invocations().length - callsBefore - want.calls;
      expect(extra).toBeGreaterThanOrEqual(0);
      expect(extra).toBeLessThanOrEqual(PARALLEL.has(at) ? 2 : 0);
      // The approved run's reviews and transcripts are never overwritten by the restart.
      for (const [path, text] of files) expect(readFileSync(path, "utf8"), path).toBe(text);
    },
    180_000,
  );
});

describe("cancel of a running task, its worker SIGKILLed at a random moment", () => {
  it("stays cancelled: nothing runs for it afterwards, no commit twice; resume then finishes it", async () => {
    // Before, around and after the moment the worker notices the cancel (its lease renewals).
    // (fast-check's first samples lean to the bounds: take the later ones.)
    const delays = fc.sample(fc.integer({ min: 0, max: 2_500 }), { seed: 14, numRuns: 200 }).slice(-3);
    for (const delay of delays) {
      const d = createDemoTask();
      made.push(d);
      // Hold the implementer so the cancel meets a running stage.
      const worker = startCli(["work", "--lease-ms", "1000"], {
        cwd: d.repo,
        env: { ...d.env, FIXPOINT_STALL_AT: "stage-started:1500:1" },
      });
      await waitFor(() => /Running t-1/.test(worker.output()), 30_000, "the worker to start t-1");
      const cancel = runCli(["cancel", "t-1"], { cwd: d.repo, env: d.env });
      expect(cancel.code, cancel.stderr).toBe(0);
      const cancelledAt = d.invocations().length;
      await new Promise((r) => setTimeout(r, delay));
      worker.kill("SIGKILL");
      await exited(worker);

      const next = runCli(["work"], { cwd: d.repo, env: d.env, timeoutMs: 60_000 });
      expect(next.code, next.stdout + next.stderr).toBe(0);
      const shown = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: d.repo, env: d.env }).stdout) as {
        task: { status: string };
      };
      expect(shown.task.status, `delay ${delay}`).toBe("cancelled");
      // The new worker ran nothing for it; the dead one ran no agent after the cancel.
      expect(d.invocations().length, `delay ${delay}`).toBe(cancelledAt);
      const subjects = d.branchSubjects().filter((s) => !s.startsWith("WIP"));
      expect(new Set(subjects).size).toBe(subjects.length);

      // A person changes their mind: `resume` finishes it, each stage's agents paid for once.
      const resumed = runCli(["resume", "t-1"], { cwd: d.repo, env: d.env, timeoutMs: 90_000 });
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      const done = JSON.parse(runCli(["show", "t-1", "--json"], { cwd: d.repo, env: d.env }).stdout) as {
        task: { status: string; final_verdict: string | null };
      };
      expect(done.task.status, `delay ${delay}`).toBe("completed");
      const implement = d.invocations().filter((i) => i.stage === "implement");
      expect(implement, `delay ${delay}`).toHaveLength(1);
    }
  }, 180_000);
});
