import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  answerAll,
  byStage,
  finding,
  fixEverything,
  fixIds,
  fixReply,
  implementFeature,
  reviewReply,
} from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

describe("the loop ends approved", () => {
  it("APPROVED after 1 fix cycle: two findings fixed, the reviewer verifies them", async () => {
    const h = await harness({
      gates: { test: "node test/app.test.js" },
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [
                  finding("P1", "greet() crashes on undefined names", { line_start: 2 }),
                  finding("P2", "double() lacks a doc comment", { file: "src/feature.js", line_start: 1 }),
                ])
              : reviewReply("APPROVED", [], answerAll(req.prompt, "resolved", "verified")),
        }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask({ title: "Add double()" });
    const summary = await h.runAll();

    expect(summary.errors).toEqual([]);
    const task = await h.task(t.id);
    expect(task.worktreePath?.startsWith(h.env.FIXPOINT_HOME ?? "?")).toBe(true);
    expect(task).toMatchObject({
      status: "completed",
      finalVerdict: "APPROVED",
      reason: "approved after 1 fix cycle",
    });
    expect(await h.branchLog(t.id)).toEqual([
      "Add double() — implementation",
      "Address review feedback (cycle 1)",
    ]);
    expect(h.callsOf("fixer")).toHaveLength(1);
    expect(fixIds(h.callsOf("fixer")[0]?.prompt ?? "")).toEqual(["F-1", "F-2"]);

    const findings = await h.registry(t.id);
    expect(findings.map((f) => [f.id, f.severity, f.status])).toEqual([
      ["F-1", "P1", "resolved"],
      ["F-2", "P2", "resolved"],
    ]);
    expect(findings[0]?.attempts.map((a) => a.status)).toEqual(["fixed"]);

    const review0 = readFileSync(await h.reviewArtifact(t.id, 0), "utf8");
    expect(review0).toContain("## review_code");
    expect(review0).toContain("**Verdict: CHANGES_REQUESTED**");
    expect(review0).toContain("greet() crashes on undefined names");
    expect(review0).toContain("double() lacks a doc comment");
    expect(review0).toContain("## review_security");
    const review1 = readFileSync(await h.reviewArtifact(t.id, 1), "utf8");
    expect(review1).toContain("**Verdict: APPROVED**");
    expect(review1).toMatch(/F-1: resolved/);
    expect(existsSync(await h.reviewArtifact(t.id, 2))).toBe(false);
  });

  it("APPROVED_WITH_FOLLOWUPS when followups are on and only a P3 finding remains", async () => {
    const h = await harness({ followups: true, agents: p3Scenario() });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(task.status).toBe("completed");
    expect(task.finalVerdict).toBe("APPROVED_WITH_FOLLOWUPS");
    expect(task.reason).toContain("1 non-blocking finding left as follow-ups");
    const f2 = (await h.registry(t.id)).find((f) => f.id === "F-2");
    expect(f2).toMatchObject({ severity: "P3", status: "deferred" });
    // The follow-up waits for a person as its own task, linked to the finding it came from.
    const follow = await h.store.getTask(`${t.id}.F-2`);
    expect(follow).toMatchObject({ parentId: t.id, status: "needs_human" });
    expect(follow?.prompt).toContain("Rename greet to greeting for consistency");
  });

  it("plain APPROVED with a non-blocking finding left when followups are off", async () => {
    const h = await harness({ followups: false, agents: p3Scenario() });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(task).toMatchObject({
      status: "completed",
      finalVerdict: "APPROVED",
      reason: "approved after 1 fix cycle",
    });
    expect((await h.registry(t.id)).map((f) => [f.id, f.status])).toEqual([
      ["F-1", "resolved"],
      ["F-2", "deferred"],
    ]);
  });
});

/** Cycle 0: a P1 and a P3. The fixer fixes the P1 and defers the P3 with a real reason. */
function p3Scenario() {
  return {
    implementer: implementFeature(),
    reviewer: byStage({
      review_code: (req) =>
        req.cycle === 0
          ? reviewReply("CHANGES_REQUESTED", [
              finding("P1", "double() returns a string for numeric strings", {
                file: "src/feature.js",
                line_start: 2,
              }),
              finding("P3", "Rename greet to greeting for consistency", { line_start: 1 }),
            ])
          : reviewReply(
              "APPROVED_WITH_FOLLOWUPS",
              [],
              answerAll(req.prompt, "resolved").map((p) =>
                p.id === "F-2" ? { ...p, status: "still_open" as const } : p,
              ),
            ),
    }),
    fixer: (req: { prompt: string }) =>
      fixReply(
        fixIds(req.prompt).map((id) =>
          id === "F-1"
            ? { id, status: "fixed" as const, justification: "double() coerces with Number() first" }
            : {
                id,
                status: "deferred" as const,
                justification:
                  "Renaming greet changes the exported API that README documents; it needs its own release note.",
              },
        ),
      ),
  };
}
