import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { fewestStagesToEnd } from "../../src/engine/max-stages.js";
import { parseWorkflow } from "../../src/workflow/parse.js";
import { implementFeature } from "../helpers/agent-replies.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The golden six-stage chain workflow, with `defaults max-stages` set to `maxStages`. */
async function sixChain(maxStages: number): Promise<EngineHarness> {
  const harness = await createEngineHarness({
    goldenWorkflows: ["six-chain.kdl"],
    agents: { implementer: implementFeature() },
  });
  harness.deps.config.defaults.maxStages = maxStages;
  return harness;
}

describe("max-stages (issue 10)", () => {
  it("a run that reaches the workflow's max-stages stops there, names the limit and records every stage it ran", async () => {
    h = await createEngineHarness({
      goldenWorkflows: ["long-loop.kdl"],
      agents: { implementer: implementFeature() },
    });
    const t = await h.addTask({ workflow: "long-loop" });
    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    expect(h.callsOf("implementer")).toHaveLength(5);
    const stages = await h.stages(t.id);
    expect(stages.map((s) => s.stageId)).toEqual(["a", "b", "a", "b", "a"]);
    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "needs_human", finalVerdict: "CHANGES_REQUESTED" });
    expect(task.reason).toContain("stage b would be stage 6 of this run, over the limit of max-stages=5");
    expect(task.reason).toContain('raise `workflow "long-loop" max-stages`');
    expect(task.reason).toContain(`fixpoint retry ${t.id}`);
    // Stopped at b, not dropped: a retry starts again from it.
    const [run] = await h.runs(t.id);
    const cp = run ? await h.store.getCheckpoint(run.id) : null;
    expect(cp?.state).toMatchObject({ stoppedAt: "b", stagesRun: 5 });
  });

  it("a chain longer than `defaults max-stages` is refused before its first stage, naming the key", async () => {
    h = await sixChain(5);
    const t = await h.addTask({ workflow: "six-chain" });
    await h.runAll();

    expect(h.callsOf("implementer")).toHaveLength(0);
    expect(await h.stages(t.id)).toEqual([]);
    const task = await h.task(t.id);
    expect(task.status).toBe("needs_human");
    expect(task.reason).toContain("workflow six-chain cannot finish within max-stages=5");
    expect(task.reason).toContain("the shortest way from stage s1 to an exit runs 6 stages");
    expect(task.reason).toContain("raise `defaults max-stages`");
  });

  it("a chain exactly as long as the limit runs to its exit (the exit is not counted)", async () => {
    h = await sixChain(6);
    const t = await h.addTask({ workflow: "six-chain" });
    await h.runAll();

    expect(h.callsOf("implementer")).toHaveLength(6);
    expect((await h.stages(t.id)).map((s) => s.stageId)).toEqual([
      "s1",
      "s2",
      "s3",
      "s4",
      "s5",
      "s6",
      "done",
    ]);
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
  });
});

describe("fewestStagesToEnd", () => {
  const path = fileURLToPath(new URL("./workflows/review-loop.kdl", import.meta.url));
  const wf = parseWorkflow(readFileSync(path, "utf8"), path);

  it("counts a parallel block with its children and ends at an exit or a new cycle", () => {
    // implement (1) + reviews with two children (3) + decide (1), then the exit.
    expect(fewestStagesToEnd(wf, "implement")).toBe(5);
    expect(fewestStagesToEnd(wf, "decide")).toBe(1);
    expect(fewestStagesToEnd(wf, "fix")).toBe(0);
    expect(fewestStagesToEnd(wf, "done")).toBe(0);
  });
});
