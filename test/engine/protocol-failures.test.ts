import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  answerAll,
  byStage,
  finding,
  fixEverything,
  garbageReply,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("protocol failures are retried in place, then recorded — never a crash", () => {
  it("a reviewer that prints garbage is retried twice, recorded as failed, and the others still count", async () => {
    const h = await harness({
      maxCycles: 1,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [finding("P1", "greet() crashes on undefined names")])
              : reviewReply("APPROVED", [], answerAll(req.prompt, "resolved")),
          review_security: () => reviewReply("APPROVED"),
          review_tests: () => garbageReply(),
        }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    const cycle0 = (await h.stages(t.id)).filter((s) => s.cycle === 0);
    const bad = cycle0.find((s) => s.stageId === "review_tests");
    expect(bad).toMatchObject({
      outcome: "fail",
      failureClass: "unparsable",
      failureReason: "review output unparsable",
      attempts: 3,
    });
    expect(h.callsOf("reviewer", { stageId: "review_tests" }).filter((c) => c.cycle === 0)).toHaveLength(3);
    expect(h.callsOf("reviewer", { stageId: "review_code" }).filter((c) => c.cycle === 0)).toHaveLength(1);
    expect(h.callsOf("reviewer", { stageId: "review_security" }).filter((c) => c.cycle === 0)).toHaveLength(
      1,
    );
    // The retry tells the agent what went wrong.
    expect(h.callsOf("reviewer", { stageId: "review_tests" })[1]?.prompt).toContain(
      "could not be read by fixpoint",
    );

    const [f1] = await h.registry(t.id);
    expect(f1).toMatchObject({ id: "F-1", title: "greet() crashes on undefined names" });
    expect(readFileSync(await h.reviewArtifact(t.id, 0), "utf8")).toContain("review output unparsable");

    // Everything else approved, but a review that could not be done is not an approval.
    const task = await h.task(t.id);
    expect(task.status).toBe("needs_human");
    expect(task.finalVerdict).not.toMatch(/^APPROVED/);
    expect(task.reason).toContain("review_tests");
  });

  it('a fixer whose report is garbage is retried, then every finding it was shown is deferred with "no report"', async () => {
    const h = await harness({
      maxCycles: 1,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [
                  finding("P1", "greet() crashes on undefined names", { line_start: 2 }),
                  finding("P2", "double() lacks a doc comment", { file: "src/feature.js", line_start: 1 }),
                ])
              : reviewReply("CHANGES_REQUESTED", [], answerAll(req.prompt, "still_open")),
        }),
        fixer: () => garbageReply(),
      },
    });
    const t = await h.addTask();
    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    expect(h.callsOf("fixer")).toHaveLength(3);
    const fix = (await h.stages(t.id)).find((s) => s.stageId === "fix");
    expect(fix).toMatchObject({
      outcome: "partial_success",
      failureReason: "fix report unparsable",
      attempts: 3,
    });
    const findings = await h.registry(t.id);
    expect(
      findings.map((f) => [f.id, f.status, f.attempts.map((a) => `${a.status}: ${a.justification}`)]),
    ).toEqual([
      ["F-1", "deferred", ["no_report: no report"]],
      ["F-2", "deferred", ["no_report: no report"]],
    ]);
    expect(await h.task(t.id)).toMatchObject({ status: "needs_human", finalVerdict: "MAX_CYCLES_REACHED" });
  });
});
