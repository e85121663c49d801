/**
 * A worker whose engine thread is blocked (synchronous work longer than the lease) keeps its
 * lease, because leases are renewed from a thread of their own; only a dead worker loses it.
 * Lease 2 s, three `fixpoint work --watch` processes on one store, the stage holding the event
 * loop for 6 s (FIXPOINT_STALL_AT).
 */

import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { exited, startCli, waitFor } from "../helpers/cli.js";
import { createDemoTask, type DemoTask } from "../helpers/demo-task.js";

const LEASE_MS = "2000";

let d: DemoTask | undefined;
let workers: ChildProcess[] = [];
afterEach(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
  await Promise.all(workers.map((w) => exited(w)));
  workers = [];
  d?.cleanup();
  d = undefined;
});

function startWorkers(demo: DemoTask, stallAt: string): ChildProcess[] {
  const env = { ...demo.env, FIXPOINT_STALL_AT: stallAt };
  workers = [0, 1, 2].map(() =>
    startCli(["work", "--watch", "--lease-ms", LEASE_MS], { cwd: demo.repo, env }),
  );
  return workers;
}

async function taskState(demo: DemoTask) {
  const store = await demo.store();
  try {
    const task = await store.getTask("t-1");
    const events = await store.listEvents("t-1");
    const stages = await store.listStageExecutions("t-1");
    return { task, events, stages };
  } finally {
    await store.close();
  }
}

async function until(
  demo: DemoTask,
  done: (s: Awaited<ReturnType<typeof taskState>>) => boolean,
  what: string,
) {
  let last = await taskState(demo);
  const start = Date.now();
  while (!done(last)) {
    if (Date.now() - start > 120_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
    last = await taskState(demo);
  }
  return last;
}

describe("a lease of 2 s and a stage that blocks its worker's event loop for 6 s", () => {
  it("completes exactly once: never taken over while its worker lives", async () => {
    d = createDemoTask();
    const demo = d;
    // The first implement reply blocks the event loop of whichever worker runs it, 3 × the lease.
    const ws = startWorkers(demo, "agent-exited:6000:1");
    const s = await until(
      demo,
      (x) => x.task?.status === "completed" && x.task.workerId === null,
      "the task to complete and be released",
    );
    // Every worker is still alive and polling (none died with the task half-released).
    expect(ws.map((w) => [w.exitCode, w.signalCode])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);

    expect(s.task?.finalVerdict).toBe("APPROVED");
    // One claim in all: the token grows with every claim.
    expect(s.task?.leaseToken).toBe(1);
    const implement = s.stages.find((x) => x.stageId === "implement");
    // The stall really happened inside the stage (so the lease was renewed while it lasted).
    expect((implement?.endedAt ?? 0) - (implement?.startedAt ?? 0)).toBeGreaterThanOrEqual(6000);
    expect(demo.invocations().filter((i) => i.role === "implementer")).toHaveLength(1);
    expect(new Set(demo.invocations().map((i) => i.pid)).size).toBe(1);
    expect(s.events.map((e) => e.type)).not.toContain("worker.lost");
  }, 150_000);

  it("is taken over and finished by another worker after its worker is SIGKILLed mid-stall", async () => {
    d = createDemoTask();
    const demo = d;
    // Every worker blocks 6 s right after the first stage it records.
    const ws = startWorkers(demo, "checkpoint-written:6000:1");
    const stalled = await until(
      demo,
      (x) => x.stages.some((st) => st.stageId === "implement") && x.task?.workerId != null,
      "the implement stage to be recorded",
    );
    const pid = Number(stalled.task?.workerId?.split(":")[1]);
    const owner = ws.find((w) => w.pid === pid);
    expect(owner).toBeDefined();
    owner?.kill("SIGKILL");
    await waitFor(() => owner?.signalCode === "SIGKILL", 10_000, "the owner to die");

    const s = await until(
      demo,
      (x) => x.task?.status === "completed" && x.task.workerId === null,
      "another worker to finish and release the task",
    );
    expect(s.task?.finalVerdict).toBe("APPROVED");
    expect(s.task?.leaseToken).toBe(2);
    // The new owner went on from the checkpoint: the recorded implement stage did not run again.
    expect(demo.invocations().filter((i) => i.role === "implementer")).toHaveLength(1);
    expect(new Set(demo.invocations().map((i) => i.pid)).size).toBe(2);
  }, 180_000);
});
