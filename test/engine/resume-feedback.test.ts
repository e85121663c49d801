import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { prepareResume } from "../../src/cli/commands/resume.js";
import {
  answerAll,
  byStage,
  finding,
  fixEverything,
  fixIds,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/**
 * Cycle 0: F-1 (P1), F-2 (P3), F-3 (P2). Cycle 1: F-1 and F-3 still open, F-2 resolved, and a new
 * F-4 (P0). From then on (the resumed run) everything is verified resolved.
 */
const reviewCode: ScriptHandler = (req) => {
  if (req.cycle === 0) {
    return reviewReply("CHANGES_REQUESTED", [
      finding("P1", "greet() crashes on undefined names", { line_start: 2 }),
      finding("P3", "Rename greet to greeting for consistency", { line_start: 1 }),
      finding("P2", "double() lacks a doc comment", { file: "src/feature.js", line_start: 1 }),
    ]);
  }
  if (req.cycle === 1) {
    const prior = answerAll(req.prompt, "still_open", "not fixed yet").map((p) =>
      p.id === "F-2" ? { id: p.id, status: "resolved" as const } : p,
    );
    return reviewReply(
      "CHANGES_REQUESTED",
      [finding("P0", "double() evaluates its input as code", { file: "src/feature.js", line_start: 12 })],
      prior,
    );
  }
  return reviewReply("APPROVED", [], answerAll(req.prompt, "resolved", "verified"));
};

describe("resume with the last review's feedback (seed 002)", () => {
  it("a MAX_CYCLES_REACHED run stores its blocking findings; resume sends exactly those to the fixer's previous session", async () => {
    const fix = fixEverything();
    const fixer: ScriptHandler = async (req, ctx) => ({
      ...(await fix(req, ctx)),
      sessionId: `fixer-session-${ctx.invocation}`,
    });
    const h = await harness({
      maxCycles: 1,
      agents: { implementer: implementFeature(), reviewer: byStage({ review_code: reviewCode }), fixer },
    });
    const t = await h.addTask();
    await h.runAll();

    const ended = await h.task(t.id);
    expect(ended).toMatchObject({ status: "needs_human", finalVerdict: "MAX_CYCLES_REACHED" });
    const [run1] = await h.runs(t.id);
    const stored = run1?.meta.lastReviewIssues ?? [];
    expect(stored.map((i) => [i.id, i.severity])).toEqual([
      ["F-1", "P1"],
      ["F-4", "P0"],
    ]);
    const firstRunFixes = h.callsOf("fixer").length;
    expect(firstRunFixes).toBe(1);

    const message = await prepareResume(h.project(), ended);
    expect(message).toContain("2 findings");
    await h.runAll();

    const resumed = h.callsOf("fixer")[firstRunFixes];
    expect(resumed, "the resumed run must start with a fix").toBeDefined();
    expect(fixIds(resumed?.prompt ?? "").sort()).toEqual(["F-1", "F-4"]);
    expect(resumed?.prompt).toContain("greet() crashes on undefined names");
    expect(resumed?.prompt).toContain("double() evaluates its input as code");
    expect(resumed?.prompt).not.toContain("Rename greet to greeting");
    expect(resumed?.prompt).not.toContain("double() lacks a doc comment");
    // Appended to the fixer's last session of the failed run, not a fresh one.
    expect(resumed?.sessionId).toBe("fixer-session-1");

    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "completed", finalVerdict: "APPROVED" });
    const runs = await h.runs(t.id);
    expect(runs.map((r) => [r.kind, r.finalVerdict])).toEqual([
      ["start", "MAX_CYCLES_REACHED"],
      ["resume", "APPROVED"],
    ]);
    expect(runs[1]?.meta.lastReviewIssues).toBeUndefined();
  });
});
