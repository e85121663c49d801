import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import {
  answerAll,
  byStage,
  finding,
  fixIds,
  fixReply,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/** Each reviewer raises one problem in cycle 0 and verifies everything afterwards. */
function raisesOnce(f: ReturnType<typeof finding>): ScriptHandler {
  return (req) =>
    req.cycle === 0
      ? reviewReply("CHANGES_REQUESTED", [f])
      : reviewReply("APPROVED", [], answerAll(req.prompt, "resolved", "checked"));
}

describe("findings accumulate before the fix (seed 000)", () => {
  it("three parallel reviewers and a failing gate all reach ONE fix prompt; the passing gate resolves its finding", async () => {
    const fixer: ScriptHandler = (req) => {
      // The gate's repair: the file the gate checks for.
      writeFileSync(join(req.cwd, "fixed.txt"), "ok\n");
      return fixReply(
        fixIds(req.prompt).map((id) => ({ id, status: "fixed" as const, justification: `addressed ${id}` })),
      );
    };
    const h = await harness({
      gates: { test: "test -f fixed.txt || { echo 'error: fixed.txt is missing' >&2; exit 1; }" },
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: raisesOnce(finding("P1", "greet() crashes on undefined names", { line_start: 2 })),
          review_security: raisesOnce(
            finding("P0", "double() evaluates its input as code", { file: "src/feature.js", line_start: 2 }),
          ),
          review_tests: raisesOnce(
            finding("P2", "No test covers double()", { file: "test/app.test.js", line_start: 1 }),
          ),
        }),
        fixer,
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const fixes = h.callsOf("fixer");
    expect(fixes).toHaveLength(1);
    const prompt = fixes[0]?.prompt ?? "";
    const findings = await h.registry(t.id);
    expect(findings).toHaveLength(4);
    expect(fixIds(prompt).sort()).toEqual(findings.map((f) => f.id).sort());
    expect(prompt).toContain("gate test failed (exit 1)");
    expect(prompt).toContain("error: fixed.txt is missing");
    expect(prompt).toContain("greet() crashes on undefined names");
    expect(prompt).toContain("double() evaluates its input as code");
    expect(prompt).toContain("No test covers double()");
    expect(prompt.match(/## Outstanding Review Findings/g)).toHaveLength(1);

    const gate = findings.find((f) => f.sources.some((s) => s.source === "gate:test"));
    expect(gate).toMatchObject({ title: "gate test failed (exit 1)", severity: "P1", status: "resolved" });
    const resolvedBy = (await h.events(t.id)).filter(
      (e) => e.type === "finding.status" && e.data.id === gate?.id && e.data.to === "resolved",
    );
    expect(JSON.stringify(resolvedBy)).toContain("gate test passed");
    expect(await h.task(t.id)).toMatchObject({ status: "completed", finalVerdict: "APPROVED" });
  });
});
