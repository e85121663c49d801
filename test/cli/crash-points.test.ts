/**
 * Every named crash point (src/engine/crash-points.ts, docs/reliability.md): a `fixpoint work`
 * killed there with SIGKILL, then a new worker, must end the task exactly as an uninterrupted
 * run does — with no stage that was recorded as finished run again, no commit made twice, no
 * finding duplicated, and still one run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Finding } from "../../src/domain/types.js";
import { exited, runCli, startCli } from "../helpers/cli.js";
import { createDemoTask, type DemoTask } from "../helpers/demo-task.js";

interface Outcome {
  verdict: string | null;
  status: string;
  findings: string[];
  subjects: string[];
}

async function outcome(d: DemoTask): Promise<Outcome> {
  const store = await d.store();
  try {
    const task = await store.getTask("t-1");
    const findings = await store.listFindings("t-1");
    return {
      verdict: task?.finalVerdict ?? null,
      status: task?.status ?? "missing",
      findings: findings.map((f: Finding) => `${f.id} ${f.severity} ${f.status} ${f.title}`),
      subjects: d.branchSubjects(),
    };
  } finally {
    await store.close();
  }
}

const made: DemoTask[] = [];
afterAll(() => {
  for (const d of made) d.cleanup();
});

let baseline: Outcome;
let baselineCalls = 0;
beforeAll(async () => {
  const d = createDemoTask();
  made.push(d);
  const r = runCli(["work"], { cwd: d.repo, env: d.env, timeoutMs: 90_000 });
  expect(r.code).toBe(0);
  baseline = await outcome(d);
  baselineCalls = d.invocations().length;
  expect(baseline.verdict).toBe("APPROVED");
}, 120_000);

// `<point>[:<n>]`: the n-th time the worker reaches the point. The demo task runs: implement
// (agent 1, commit 1), gates, three parallel reviews (agents 2–4), decide, fix (agent 5,
// commit 2), gates, three reviews (agents 6–8), decide, done.
const CASES = [
  "claimed",
  "run-started",
  "stage-started:2",
  "agent-exited:1",
  "commit-made:1",
  "agent-exited:3",
  "checkpoint-written:2",
  "checkpoint-written:5",
  "agent-exited:5",
  "commit-made:2",
  "agent-exited:7",
  "verdict-written",
  "lease-renewed:3",
];

/** Killed while the other reviewers of the parallel block may still be working. */
const PARALLEL_CASES = new Set(["agent-exited:3", "agent-exited:7"]);

describe.concurrent("a worker SIGKILLed at a crash point, then a new worker", () => {
  it.each(CASES)(
    "at %s: same verdict, no finished stage rerun, no duplicate commit or finding",
    async (at) => {
      const d = createDemoTask();
      made.push(d);
      const first = startCli(["work", "--lease-ms", "600"], {
        cwd: d.repo,
        env: {
          ...d.env,
          FIXPOINT_CRASH_AT: at,
          // A renewal is due every lease/3; hold the first agent's stage long enough for three of
          // them, however fast the rest of the run is on this machine.
          ...(at.startsWith("lease-renewed") ? { FIXPOINT_STALL_AT: "agent-exited:2000:1" } : {}),
        },
      });
      await exited(first);
      expect(first.signalCode, `the worker should have died at ${at}:\n${first.output()}`).toBe("SIGKILL");

      // What the dead worker had recorded as finished, and how often each of those stages had run.
      const store = await d.store();
      const recorded = (await store.listStageExecutions("t-1")).map((s) => `${s.stageId}@${s.cycle}`);
      await store.close();
      const key = (i: { stage: string; cycle: number }) => `${i.stage}@${i.cycle}`;
      const ranBefore = new Map<string, number>();
      for (const i of d.invocations()) ranBefore.set(key(i), (ranBefore.get(key(i)) ?? 0) + 1);

      const second = runCli(["work"], { cwd: d.repo, env: d.env, timeoutMs: 90_000 });
      expect(second.code, second.stdout + second.stderr).toBe(0);

      const after = await outcome(d);
      expect(after.verdict).toBe(baseline.verdict);
      expect(after.status).toBe(baseline.status);
      expect(after.findings).toEqual(baseline.findings);
      // No commit twice, none lost: the branch is the uninterrupted run's (an agent's reply is saved
      // before its work is committed, so a resumed stage commits that work as its own).
      expect(after.subjects).toEqual(baseline.subjects);

      const ranAfter = new Map<string, number>();
      for (const i of d.invocations()) ranAfter.set(key(i), (ranAfter.get(key(i)) ?? 0) + 1);
      for (const k of new Set(recorded)) {
        if (ranBefore.has(k))
          expect(ranAfter.get(k), `stage ${k} finished before the kill`).toBe(ranBefore.get(k));
      }

      const s2 = await d.store();
      const stages = (await s2.listStageExecutions("t-1")).map((s) => `${s.stageId}@${s.cycle}#${s.visit}`);
      const runs = await s2.listRuns("t-1");
      await s2.close();
      expect(new Set(stages).size).toBe(stages.length);
      expect(runs).toHaveLength(1);
      // Agents paid for once. Only a parallel review block killed while two of its reviewers were
      // still working runs those again: they had not answered yet.
      const extra = d.invocations().length - baselineCalls;
      expect(extra).toBeGreaterThanOrEqual(0);
      expect(extra).toBeLessThanOrEqual(PARALLEL_CASES.has(at) ? 2 : 0);
    },
    150_000,
  );
});
