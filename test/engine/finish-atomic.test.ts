import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/domain/types.js";
import {
  answerAll,
  byStage,
  finding,
  fixIds,
  fixReply,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { putCheckpoint } from "../helpers/checkpoint.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Cycle 0: a P1 and a P3; the fixer fixes the P1 and defers the P3, which becomes a follow-up. */
function followupScenario() {
  return {
    implementer: implementFeature(),
    reviewer: byStage({
      review_code: (req) =>
        req.cycle === 0
          ? reviewReply("CHANGES_REQUESTED", [
              finding("P1", "double() returns a string for numeric strings", { file: "src/feature.js" }),
              finding("P3", "Rename greet to greeting for consistency", { line_start: 1 }),
            ])
          : reviewReply(
              "APPROVED_WITH_FOLLOWUPS",
              [],
              answerAll(req.prompt, "resolved").map((p) =>
                p.id === "F-2" ? { ...p, status: "still_open" as const } : p,
              ),
            ),
    }),
    fixer: (req: { prompt: string }) =>
      fixReply(
        fixIds(req.prompt).map((id) =>
          id === "F-1"
            ? { id, status: "fixed" as const, justification: "coerces with Number() first" }
            : { id, status: "deferred" as const, justification: "a rename is out of scope here" },
        ),
      ),
  };
}

describe("the end of a run", () => {
  it("is one transaction: a worker that loses its lease at the exit writes no verdict, run end, follow-up or exit record", async () => {
    h = await createEngineHarness({ followups: true, agents: followupScenario() });
    const harness = h;
    const t = await h.addTask();
    harness.listen((e) => {
      if (e.type !== "stage.started" || e.stageId !== "done") return;
      // Another worker takes the task over while this one runs its exit stage.
      void harness.store.claimTask({ workerId: "thief", leaseMs: 600_000, now: Date.now() + 3_600_000 });
    });
    await h.runAll();

    const task = await h.task(t.id);
    expect(task).toMatchObject({ workerId: "thief", status: "running", finalVerdict: null });
    expect(await h.store.getTask(`${t.id}.F-2`)).toBeNull();
    expect((await h.runs(t.id)).map((r) => [r.status, r.finalVerdict])).toEqual([["running", null]]);
    expect((await h.stages(t.id)).map((s) => s.stageId)).not.toContain("done");
    expect((await h.events(t.id)).map((e) => e.type)).not.toContain("task.finished");
  });

  it("is finished from the checkpoint when the exit was recorded but not the verdict: no stage runs again", async () => {
    h = await createEngineHarness({ followups: true, agents: followupScenario() });
    const t = await h.addTask();
    await h.runAll();
    const done = await h.task(t.id);
    expect(done.finalVerdict).toBe("APPROVED_WITH_FOLLOWUPS");
    const calls = h.calls.length;
    const stages = (await h.stages(t.id)).length;

    // Put the task back in the window a worker could once die in (older fixpoint wrote the exit
    // stage's checkpoint, then the verdict in a second step): the checkpoint has no next stage
    // and no verdict, the run is still running, the task queued for a worker to pick up.
    const [run] = await h.runs(t.id);
    if (!run) throw new Error("no run");
    const cp = await h.store.getCheckpoint(run.id);
    const state = { ...(cp?.state as JsonObject), final: null, next: null };
    await h.store.updateRun(run.id, { status: "running", finalVerdict: null, endedAt: null }, 1);
    await putCheckpoint(h.store, { taskId: t.id, runId: run.id }, state, {
      status: "queued",
      finalVerdict: null,
      reason: null,
    });

    await h.runAll();
    expect(h.calls.length).toBe(calls);
    expect((await h.stages(t.id)).length).toBe(stages);
    expect(await h.runs(t.id)).toHaveLength(1);
    expect(await h.task(t.id)).toMatchObject({
      status: "completed",
      finalVerdict: "APPROVED_WITH_FOLLOWUPS",
    });
    expect((await h.runs(t.id))[0]).toMatchObject({
      status: "completed",
      finalVerdict: "APPROVED_WITH_FOLLOWUPS",
    });
    // The follow-up made by the first finish is not made twice.
    expect((await h.store.listTasks()).filter((x) => x.parentId === t.id)).toHaveLength(1);
  });
});
