import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainWorkflow } from "../../bench/util.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/**
 * A run's one-time work (run-task.ts): the store prepares what a stage's record runs once per run,
 * off the path between two agents, and every stage is still recorded.
 */
describe("a run's start-up work", () => {
  it("prepares the store's stage records once per run, and the runs record every stage", async () => {
    const h = await harness({ agents: { implementer: async () => ({ text: "done" }) } });
    const store = h.deps.store;
    const prepare = store.prepareStageRecords?.bind(store);
    expect(prepare).toBeTypeOf("function");
    let prepared = 0;
    store.prepareStageRecords = () => {
      prepared++;
      prepare?.();
    };
    const dir = join(h.root, ".fixpoint", "workflows");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "chain.kdl"), chainWorkflow(4));
    const tasks = [await h.addTask({ workflow: "chain" }), await h.addTask({ workflow: "chain" })];

    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    expect(prepared).toBe(2);
    for (const t of tasks) {
      expect(await h.task(t.id)).toMatchObject({ status: "completed" });
      expect((await h.stages(t.id)).map((s) => s.stageId)).toEqual(["s0", "s1", "s2", "s3", "done"]);
    }
  });
});
