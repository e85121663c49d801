import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { prepareRetry } from "../../src/cli/commands/resume.js";
import {
  answerAll,
  byStage,
  finding,
  fixEverything,
  fixIds,
  fixReply,
  implementFeature,
  relentlessReviewer,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("the loop stops on its own terms", () => {
  it("MAX_CYCLES_REACHED: stops after exactly max-cycles fix cycles", async () => {
    const h = await harness({
      maxCycles: 3,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({ review_code: relentlessReviewer() }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(h.callsOf("fixer")).toHaveLength(3);
    expect(task.status).toBe("needs_human");
    expect(task.finalVerdict).toBe("MAX_CYCLES_REACHED");
    expect(task.reason).toMatch(/blocking finding.* still open after 3 fix cycles/);
    expect(task.reason).not.toContain("\n");
    expect(await h.branchLog(t.id)).toEqual([
      "Add double() — implementation",
      "Address review feedback (cycle 1)",
      "Address review feedback (cycle 2)",
      "Address review feedback (cycle 3)",
    ]);
  });

  it("NEEDS_DISCUSSION: one reviewer asks for a human and the loop stops at once", async () => {
    const h = await harness({
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: () =>
            reviewReply("CHANGES_REQUESTED", [finding("P1", "greet() crashes on undefined names")]),
          review_security: () => reviewReply("NEEDS_DISCUSSION"),
        }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(h.callsOf("fixer")).toHaveLength(0);
    expect(task).toMatchObject({ status: "needs_human", finalVerdict: "NEEDS_DISCUSSION" });
    expect(task.reason).toContain("human");
    expect(await h.branchLog(t.id)).toEqual(["Add double() — implementation"]);
  });

  it("NO_PROGRESS: the fixer claims fixed, the reviewer keeps reopening the same finding", async () => {
    const h = await harness({
      maxCycles: 6,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [finding("P1", "greet() crashes on undefined names")])
              : reviewReply(
                  "CHANGES_REQUESTED",
                  [],
                  answerAll(req.prompt, "still_open", "still crashes on greet(undefined)"),
                ),
        }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "needs_human", finalVerdict: "NO_PROGRESS" });
    expect(task.reason).toContain("F-1");
    expect(h.callsOf("fixer")).toHaveLength(2);
    const [f1] = await h.registry(t.id);
    expect(f1).toMatchObject({ id: "F-1", status: "open", timesReopened: 2 });
  });

  it("BLOCKED: the fixer blocks every blocking finding as needing a human decision", async () => {
    const blockAll: ScriptHandler = (req) =>
      fixReply(
        fixIds(req.prompt).map((id) => ({
          id,
          status: "blocked" as const,
          reason: "needs a human decision",
          justification: "Whether undefined names should throw or greet 'stranger' is a product decision.",
        })),
      );
    const h = await harness({
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [
                  finding("P1", "greet() crashes on undefined names", { line_start: 1 }),
                  finding("P0", "double() is exported twice", { file: "src/feature.js", line_start: 1 }),
                ])
              : reviewReply("APPROVED", [], answerAll(req.prompt, "still_open")),
        }),
        fixer: blockAll,
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(task.status).toBe("needs_human");
    expect(task.finalVerdict).toBe("BLOCKED");
    expect(task.reason).toContain("needs a human decision");
    expect((await h.registry(t.id)).map((f) => [f.id, f.status])).toEqual([
      ["F-1", "blocked"],
      ["F-2", "blocked"],
    ]);
  });

  it("BUDGET_EXHAUSTED: stops within one stage of the budget, with the work committed", async () => {
    const cost = { costUsd: 0.03, usage: { input: 1000, output: 100 } };
    const h = await harness({
      budgetUsd: 0.05,
      agents: {
        implementer: implementFeature(cost),
        reviewer: byStage(
          {
            review_code: () =>
              reviewReply(
                "CHANGES_REQUESTED",
                [finding("P1", "greet() crashes on undefined names")],
                [],
                cost,
              ),
          },
          () => reviewReply("APPROVED", [], [], cost),
        ),
        fixer: fixEverything(cost),
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(task).toMatchObject({ status: "needs_human", finalVerdict: "BUDGET_EXHAUSTED" });
    expect(task.reason).toContain("$0.05");
    // No stage that costs money started after the budget was used up.
    const stages = await h.stages(t.id);
    for (const s of stages.filter((x) => x.costUsd > 0)) {
      const spentBefore = stages
        .filter((x) => x.endedAt <= s.startedAt && x.id !== s.id)
        .reduce((a, x) => a + x.costUsd, 0);
      expect(spentBefore, `${s.stageId} started with $${spentBefore} spent`).toBeLessThan(0.05);
    }
    expect(h.callsOf("fixer")).toHaveLength(0);
    expect(await h.branchLog(t.id)).toEqual(["Add double() — implementation"]);
    expect(h.repo.git(["status", "--porcelain"], task.worktreePath ?? "")).toBe("");
  });

  it("a retried run counts the earlier runs' spend once: it goes on while budget is left", async () => {
    let fixes = 0;
    const fixer = fixEverything();
    const h = await harness({
      budgetUsd: 0.1,
      agents: {
        implementer: implementFeature({ costUsd: 0.06, usage: { input: 1000, output: 100 } }),
        reviewer: byStage(
          {
            review_code: () =>
              reviewReply("CHANGES_REQUESTED", [finding("P1", "greet() crashes on undefined names")]),
          },
          () => reviewReply("APPROVED", []),
        ),
        fixer: (req, ctx) => {
          fixes++;
          if (fixes === 1) throw new Error("the fixer's model is down");
          return fixer(req, ctx);
        },
      },
    });
    const t = await h.addTask();
    await h.runAll();
    expect(await h.task(t.id)).toMatchObject({ status: "needs_human" });
    expect(fixes).toBe(1);

    // $0.06 of $0.10 spent: the retry has $0.04 left, and the fixer is asked again.
    await prepareRetry(h.project(), await h.task(t.id));
    await h.runAll();
    expect(fixes).toBeGreaterThan(1);
    expect((await h.task(t.id)).finalVerdict).not.toBe("BUDGET_EXHAUSTED");
  });
});
