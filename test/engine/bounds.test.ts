import { describe, expect, it } from "vitest";
import { approveAll, fixEverything, implementFeature, relentlessReviewer } from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("every loop is bounded", () => {
  it("a → b → a without a fix stops at a's max-visits with a clear reason", async () => {
    const h = await harness({
      goldenWorkflows: ["ping-pong.kdl"],
      agents: { implementer: implementFeature(), reviewer: approveAll(), fixer: fixEverything() },
    });
    const t = await h.addTask({ workflow: "ping-pong" });
    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    expect(h.callsOf("implementer")).toHaveLength(3);
    expect(h.callsOf("reviewer")).toHaveLength(3);
    const task = await h.task(t.id);
    expect(task.status).toBe("needs_human");
    expect(task.finalVerdict).toBe("CHANGES_REQUESTED");
    expect(task.reason).toContain("stage a reached its bound of 3 visits");
  });

  it("a workflow that never checks max_cycles() still stops after the task's max-cycles fix cycles", async () => {
    const h = await harness({
      goldenWorkflows: ["always-fix.kdl"],
      maxCycles: 2,
      agents: { implementer: implementFeature(), reviewer: relentlessReviewer(), fixer: fixEverything() },
    });
    const t = await h.addTask({ workflow: "always-fix" });
    await h.runAll();

    expect(h.callsOf("fixer")).toHaveLength(2);
    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "needs_human", finalVerdict: "MAX_CYCLES_REACHED" });
    expect(task.reason).toContain("after 2 fix cycles");
    expect(await h.branchLog(t.id)).toEqual([
      "Add double() — implementation",
      "Address review feedback (cycle 1)",
      "Address review feedback (cycle 2)",
    ]);
  });
});
