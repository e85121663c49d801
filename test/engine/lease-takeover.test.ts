import { describe, expect, it } from "vitest";
import { approveAll } from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("a worker whose lease was taken over mid-stage", () => {
  it("records nothing more: the new owner's task, run and checkpoint stay as they were", async () => {
    let stolenBy: string | null = null;
    const h = await harness({
      agents: {
        implementer: async (req) => {
          // While this agent works, the worker's lease "expires" and another worker claims the task.
          const store = h?.deps.store;
          const far = Date.now() + 3_600_000;
          const taken = await store?.claimTask({
            workerId: "thief",
            leaseMs: 600_000,
            now: far,
            ids: [req.taskId],
          });
          stolenBy = taken?.workerId ?? null;
          return { text: "done" };
        },
        reviewer: approveAll(),
        fixer: approveAll(),
      },
    });
    const t = await h.addTask();
    await h.runAll();

    expect(stolenBy).toBe("thief");
    const task = await h.task(t.id);
    expect(task.workerId).toBe("thief");
    expect(task.status).toBe("running");
    expect(task.finalVerdict).toBeNull();
    expect((await h.stages(t.id)).map((s) => s.stageId)).not.toContain("implement");
    const types = (await h.events(t.id)).map((e) => e.type);
    expect(types).not.toContain("task.finished");
    expect(types).not.toContain("stage.finished");
  });
});
