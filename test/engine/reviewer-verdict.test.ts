import { describe, expect, it } from "vitest";
import type { ScriptReply } from "../../src/agents/scripted.js";
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

/** CHANGES_REQUESTED with a summary and an empty findings list, as reviewers sometimes answer. */
function noWithoutFindings(summary: string): ScriptReply {
  const reply = reviewReply("CHANGES_REQUESTED");
  return { ...reply, text: (reply.text ?? "").replace("No problems found.", summary) };
}

describe("a reviewer's CHANGES_REQUESTED is never a yes (SPEC §9)", () => {
  it("three reviewers saying no without findings: a blocking finding from the summary, fixed, then approved", async () => {
    const h = await harness({
      maxCycles: 3,
      agents: {
        implementer: implementFeature(),
        reviewer: (req, ctx) =>
          req.cycle === 0 ? noWithoutFindings("this is wrong, redo it") : byStage({})(req, ctx),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();

    const task = await h.task(t.id);
    expect(task.finalVerdict).toBe("APPROVED");
    expect(task.reason).toBe("approved after 1 fix cycle");
    expect(h.callsOf("fixer")).toHaveLength(1);
    const findings = await h.registry(t.id);
    expect(findings.length).toBeGreaterThanOrEqual(1);
    for (const f of findings) {
      expect(f.title).toMatch(/^review_\w+ requested changes: this is wrong, redo it$/);
      expect(f.body).toContain("this is wrong, redo it");
      expect(f.severity).toBe("P1");
      expect(f.status).toBe("resolved");
    }
    expect(h.callsOf("fixer")[0]?.prompt).toContain("this is wrong, redo it");
  });

  it("a reviewer that keeps saying no without findings never ends the task approved", async () => {
    const h = await harness({
      maxCycles: 2,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({ review_code: () => noWithoutFindings("still not right") }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();
    const task = await h.task(t.id);
    expect(task.status).toBe("needs_human");
    expect(task.finalVerdict).not.toMatch(/^APPROVED/);
  });

  it("CHANGES_REQUESTED that keeps a known finding open adds no synthetic finding", async () => {
    const h = await harness({
      maxCycles: 1,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [finding("P1", "greet() crashes on undefined names")])
              : reviewReply("CHANGES_REQUESTED", [], answerAll(req.prompt, "still_open", "still crashes")),
        }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();
    expect((await h.registry(t.id)).map((f) => f.title)).toEqual(["greet() crashes on undefined names"]);
  });

  it("a status for an id the registry does not know is recorded as a warning event", async () => {
    const h = await harness({
      maxCycles: 1,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: () => reviewReply("APPROVED", [], [{ id: "F-42", status: "resolved" }]),
        }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();
    const warning = (await h.events(t.id)).find((e) => e.type === "review.prior_unknown_id");
    expect(warning?.data).toMatchObject({ level: "warning", ids: ["F-42"], source: "review:review_code" });
    expect(String(warning?.data.message)).toContain("F-42");
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
  });
});

describe("NO_PROGRESS reasons name exactly what did not move", () => {
  it("lists only the reopened finding, not every open one, and names an unparsable reviewer", async () => {
    const h = await harness({
      maxCycles: 6,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: (req) =>
            req.cycle === 0
              ? reviewReply("CHANGES_REQUESTED", [
                  finding("P1", "greet() crashes on undefined names"),
                  finding("P1", "double() has no tests at all", { file: "src/feature.js", line_start: 1 }),
                ])
              : reviewReply(
                  "CHANGES_REQUESTED",
                  [],
                  [
                    ...answerAll(req.prompt, "still_open", "still crashes").filter((p) => p.id === "F-1"),
                    { id: "F-2", status: "still_open", note: "no tests yet" },
                  ],
                ),
          review_tests: (req) => (req.cycle >= 2 ? garbageReply() : reviewReply("APPROVED")),
        }),
        // The fixer answers F-1 only: F-2 stays open (not reopened), F-1 is reopened every cycle.
        fixer: (req, ctx) => {
          const reply = fixEverything()(req, ctx);
          return reply;
        },
      },
    });
    const t = await h.addTask();
    await h.runAll();
    const task = await h.task(t.id);
    expect(task.finalVerdict).toBe("NO_PROGRESS");
    const reopened = (await h.registry(t.id)).filter((f) => f.timesReopened >= 2).map((f) => f.id);
    expect(reopened.length).toBeGreaterThan(0);
    for (const id of reopened) expect(task.reason).toContain(id);
    const notReopened = (await h.registry(t.id)).filter((f) => f.timesReopened < 2).map((f) => f.id);
    for (const id of notReopened) expect(task.reason).not.toMatch(new RegExp(`\\b${id}\\b`));
    expect(task.reason).toContain("review_tests");
  });
});
