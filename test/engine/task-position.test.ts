import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainWorkflow } from "../../bench/util.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("the task's current stage while it runs", () => {
  it("shows a long stage that follows fast ones while it runs, and nothing once the task is done", async () => {
    const n = 8;
    const seen: (string | null)[] = [];
    const h = await harness({
      agents: {
        implementer: async (req) => {
          if (req.stageId !== `s${n - 1}`) return { text: "done" };
          // The last stage waits until the task row names it (the stages before it took
          // milliseconds, so its position was left to the row's timer), as `status` would show it.
          for (let i = 0; i < 100; i++) {
            const current = (await h.task(req.taskId)).currentStage;
            seen.push(current);
            if (current === req.stageId) break;
            await new Promise((r) => setTimeout(r, 50));
          }
          return { text: "done" };
        },
      },
    });
    const dir = join(h.root, ".fixpoint", "workflows");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "chain.kdl"), chainWorkflow(n));
    const t = await h.addTask({ workflow: "chain" });
    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    expect(seen.at(-1)).toBe(`s${n - 1}`);
    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "completed", currentStage: null });
    expect((await h.stages(t.id)).map((s) => s.stageId)).toEqual([
      ...Array.from({ length: n }, (_, i) => `s${i}`),
      "done",
    ]);
  });
});
