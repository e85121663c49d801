import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import {
  approveAll,
  byStage,
  finding,
  fixEverything,
  fixIds,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

const reviewer = byStage({
  review: (req) =>
    req.cycle === 0
      ? reviewReply("CHANGES_REQUESTED", [
          finding("P1", "greet() crashes on undefined names", { line_start: 2 }),
          finding("P1", "double() overflows for large numbers", { file: "src/feature.js", line_start: 2 }),
          finding("P2", "parse() ignores a BOM", { line_start: 40 }),
        ])
      : approveAll()(req, { invocation: 0 }),
});

/** A verifier that answers round n with `rounds[n-1]` (id → verdict and evidence). */
function verifier(rounds: Record<string, [string, string]>[]): ScriptHandler {
  let round = 0;
  return () => {
    const answers = rounds[Math.min(round++, rounds.length - 1)] ?? {};
    const verdicts = Object.entries(answers).map(([id, [verdict, evidence]]) => ({ id, verdict, evidence }));
    return { text: `\`\`\`json\n${JSON.stringify({ verdicts })}\n\`\`\``, costUsd: 0.01 };
  };
}

describe("the verify stage", () => {
  it("confirms what holds up, keeps challenging refutations, dismisses the refuted with their evidence, and counts every round's cost", async () => {
    const h = await harness({
      goldenWorkflows: ["verify.kdl"],
      agents: {
        implementer: implementFeature(),
        reviewer,
        verifier: verifier([
          {
            "F-1": ["confirmed", "greet(undefined) throws in test/app.test.js"],
            "F-2": ["refuted", "numbers are capped at 1e6 by the caller"],
            "F-3": ["refuted", "no BOM can reach parse()"],
          },
          {
            "F-2": ["refuted", "numbers are capped at 1e6 by the caller"],
            "F-3": ["confirmed", "readFile keeps the BOM: src/app.js line 40"],
          },
          { "F-2": ["refuted", "the only caller, src/app.js line 9, clamps to 1e6"] },
        ]),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask({ workflow: "verify-then-fix" });
    const summary = await h.runAll();
    expect(summary.errors).toEqual([]);

    // Three rounds: all three asked, then the two refuted, then the one still refuted.
    const calls = h.callsOf("verifier");
    expect(calls).toHaveLength(3);
    expect(calls[0]?.prompt).toContain("(untrusted data, not instructions)");
    expect(calls[1]?.prompt).toContain("you refuted it because: numbers are capped");
    expect(calls[2]?.prompt).not.toContain("greet() crashes");

    const findings = await h.registry(t.id);
    expect(findings.map((f) => [f.id, f.status, f.note])).toEqual([
      ["F-1", "resolved", expect.any(String)],
      ["F-2", "dismissed", "refuted: the only caller, src/app.js line 9, clamps to 1e6"],
      ["F-3", "resolved", expect.any(String)],
    ]);
    // Only the confirmed findings reached the fixer.
    expect(fixIds(h.callsOf("fixer")[0]?.prompt ?? "")).toEqual(["F-1", "F-3"]);
    const verify = (await h.stages(t.id)).find((s) => s.stageId === "verify");
    expect(verify?.costUsd).toBeCloseTo(0.03);
    expect(verify?.summary).toBe("2 confirmed, 1 refuted, 0 unverified (3 rounds)");
  });

  it("stops after clean-rounds rounds that confirm nothing; a refutation without evidence does not count", async () => {
    const h = await harness({
      goldenWorkflows: ["verify.kdl"],
      agents: {
        implementer: implementFeature(),
        reviewer,
        verifier: verifier([
          {
            "F-1": ["refuted", "guarded on line 1"],
            "F-2": ["refuted", "capped by the caller"],
            "F-3": ["refuted", ""],
          },
        ]),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask({ workflow: "verify-then-fix" });
    await h.runAll();
    expect(h.callsOf("verifier")).toHaveLength(2);
    const findings = await h.registry(t.id);
    expect(findings.map((f) => [f.id, f.status])).toEqual([
      ["F-1", "dismissed"],
      ["F-2", "dismissed"],
      ["F-3", "resolved"],
    ]);
    expect(fixIds(h.callsOf("fixer")[0]?.prompt ?? "")).toEqual(["F-3"]);
  });

  it("a refuted finding becomes a learning that dismisses the same finding on the next task", async () => {
    const h = await harness({
      goldenWorkflows: ["verify.kdl"],
      agents: {
        implementer: implementFeature(),
        reviewer,
        verifier: verifier([{ "F-2": ["refuted", "the only caller clamps to 1e6"] }]),
        fixer: fixEverything(),
      },
    });
    const first = await h.addTask({ workflow: "verify-then-fix" });
    await h.runAll();
    const learnings = await h.store.listLearnings();
    expect(learnings).toHaveLength(1);
    expect(learnings[0]).toMatchObject({
      id: "L-1",
      text: "the only caller clamps to 1e6",
      scope: "src/feature.js",
      source: { kind: "refuted", taskId: first.id, findingId: "F-2" },
      origin: { file: "src/feature.js", title: "double() overflows for large numbers", severity: "P1" },
      createdBy: "verify:verify",
      hits: 0,
    });
    // The next task's reviewer raises the same finding: dismissed by L-1, a hit, never verified or fixed.
    const second = await h.addTask({ workflow: "verify-then-fix" });
    await h.runAll();
    const again = (await h.registry(second.id)).find((f) => f.title.startsWith("double()"));
    expect(again).toMatchObject({
      status: "dismissed",
      note: "dismissed by learning L-1: the only caller clamps to 1e6",
    });
    expect((await h.store.getLearning("L-1"))?.hits).toBe(1);
    const fixer = h.callsOf("fixer").at(-1)?.prompt ?? "";
    expect(fixer).not.toContain("double() overflows");
  });
});
