import { describe, expect, it } from "vitest";
import { parseFixReport } from "./fix-parse.js";

describe("parseFixReport", () => {
  it("reads the documented shape and its common variants", () => {
    const text = `Done.\n\`\`\`json\n${JSON.stringify({
      summary: "s",
      items: [
        { id: "F-1", status: "fixed", summary: "parameterized the query" },
        { id: "2", status: "blocked", reason: "needs_human_decision", note: "which API version?" },
        { id: "F-3", status: "won't fix", justification: "x" },
        { id: "F-4", status: "exploded" },
      ],
    })}\n\`\`\``;
    const r = parseFixReport(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.report.summary).toBe("s");
    expect(r.report.entries).toEqual([
      { id: "F-1", status: "fixed", justification: "parameterized the query" },
      { id: "F-2", status: "blocked", justification: "which API version?", reason: "needs_human_decision" },
      { id: "F-3", status: "deferred", justification: "x" },
    ]);
  });

  it("prefers structured output and accepts `findings`/`report` keys", () => {
    const r = parseFixReport("garbage", { report: [{ id: "F-9", status: "fixed", justification: "j" }] });
    expect(r.ok && r.report.entries).toEqual([{ id: "F-9", status: "fixed", justification: "j" }]);
  });

  it("fails with a reason when there is no report", () => {
    const r = parseFixReport("I fixed everything, trust me.");
    expect(r).toEqual({ ok: false, error: "fix report unparsable: no JSON block" });
    const bad = parseFixReport('```json\n{"summary": "no list"}\n```');
    expect(!bad.ok && bad.error).toMatch(/findings array/);
  });
});
