import { describe, expect, it } from "vitest";
import type { FixReportEntry, RawFinding } from "../domain/types.js";
import { Registry } from "./registry.js";
import { renderOutstandingFindings } from "./render.js";

function registryWith(n: number): Registry {
  let t = 0;
  const r = Registry.load("t-1", [], { blockingSeverity: "P1", now: () => t++ });
  const raws: RawFinding[] = Array.from({ length: n }, (_, i) => ({
    severity: "P1",
    category: "correctness",
    title: `Problem number ${i + 1}`,
    body: `Details of problem ${i + 1}.`,
    file: `src/file${i + 1}.ts`,
    lineStart: 10,
    lineEnd: 12,
    suggestedFix: null,
  }));
  r.addFindings(raws, { source: "review:a", cycle: 0 });
  r.drainChanges();
  return r;
}

const ctx = (shownIds: string[], cycle = 1) => ({ cycle, commitSha: "deadbeef", shownIds });

describe("fix reports", () => {
  it("a fixer reporting on only some ids: the missing ones are deferred with 'no report'", () => {
    const r = registryWith(3);
    const out = r.applyFixReport(
      {
        summary: "",
        entries: [{ id: "F-2", status: "fixed", justification: "added the null check in parse()" }],
      },
      ctx(["F-1", "F-2", "F-3"]),
    );
    expect(out.fixed).toEqual(["F-2"]);
    expect(out.missing).toEqual(["F-1", "F-3"]);
    expect(r.get("F-1")).toMatchObject({ status: "deferred" });
    expect(r.get("F-1")?.attempts).toEqual([
      {
        cycle: 1,
        status: "no_report",
        justification: "no report",
        commitSha: "deadbeef",
        at: expect.any(Number),
      },
    ]);
    expect(r.get("F-2")?.attempts[0]).toMatchObject({
      status: "fixed",
      justification: "added the null check in parse()",
      commitSha: "deadbeef",
    });
    // Deferred comes back: the fixer sees it again next cycle.
    expect(r.forFix().map((f) => f.id)).toEqual(["F-1", "F-3"]);
  });

  it("rejects weak excuses: the finding stays open and the rejection shows in the next prompt", () => {
    const weak = [
      "out of scope",
      "Takes too long.",
      "too complex",
      "not important",
      "will do later",
      "",
      "low priority",
      "Acknowledged",
      "Out-of-scope for this PR",
    ];
    const r = registryWith(weak.length);
    const entries: FixReportEntry[] = weak.map((justification, i) => ({
      id: `F-${i + 1}`,
      status: "deferred",
      justification,
    }));
    const ids = entries.map((e) => e.id);
    const out = r.applyFixReport({ summary: "", entries }, ctx(ids));
    expect(out.rejected.map((x) => x.id)).toEqual(ids);
    expect(r.all().every((f) => f.status === "open" && f.attempts[0]?.status === "rejected")).toBe(true);
    const text = renderOutstandingFindings(r.forFix(), { tokenBudget: 100_000, blockingSeverity: "P1" }).text;
    expect(text).toContain('REJECTED: weak justification: "out of scope"');
    expect(r.drainChanges().events.filter((e) => e.type === "fix.rejected")).toHaveLength(weak.length);
  });

  it("accepts a concrete deferral", () => {
    const r = registryWith(1);
    const justification =
      "Needs the schema migration in db/migrations/0042_users.sql to land first; it is reviewed separately in #311.";
    const out = r.applyFixReport(
      { summary: "", entries: [{ id: "F-1", status: "deferred", justification }] },
      ctx(["F-1"]),
    );
    expect(out.deferred).toEqual(["F-1"]);
    expect(r.get("F-1")?.status).toBe("deferred");
  });

  it("blocked needs an accepted reason and a justification", () => {
    const r = registryWith(5);
    const out = r.applyFixReport(
      {
        summary: "",
        entries: [
          {
            id: "F-1",
            status: "blocked",
            reason: "needs_human_decision",
            justification: "Should guests be rate limited too?",
          },
          { id: "F-2", status: "blocked", reason: "external dependency", justification: "" },
          { id: "F-3", status: "blocked", reason: "out of scope", justification: "not needed" },
          {
            id: "F-4",
            status: "blocked",
            reason: "style preference",
            justification: "The project linter config in biome.json disallows the suggested form.",
          },
          {
            id: "F-5",
            status: "blocked",
            justification: "contradicts the task: the task asks to keep the v1 API intact",
          },
        ],
      },
      ctx(["F-1", "F-2", "F-3", "F-4", "F-5"]),
    );
    expect(out.blocked).toEqual(["F-1", "F-5"]);
    expect(out.deferred).toEqual(["F-2", "F-4"]);
    expect(out.rejected.map((x) => x.id)).toEqual(["F-3"]);
    expect(r.get("F-1")?.attempts[0]?.justification).toBe(
      "needs a human decision: Should guests be rate limited too?",
    );
    expect(r.get("F-3")?.status).toBe("open");
    expect(r.forFix().map((f) => f.id)).toEqual(["F-2", "F-3", "F-4"]);
  });

  it("ignores and logs ids it does not know", () => {
    const r = registryWith(1);
    const out = r.applyFixReport(
      {
        summary: "",
        entries: [
          { id: "F-1", status: "fixed", justification: "done in x.ts" },
          { id: "F-42", status: "fixed", justification: "?" },
        ],
      },
      ctx(["F-1"]),
    );
    expect(out.unknown).toEqual(["F-42"]);
    const ev = r.drainChanges().events;
    expect(ev.find((e) => e.type === "fix.unknown_id")?.data).toMatchObject({ id: "F-42" });
    expect(ev.filter((e) => e.type === "finding.status")).toHaveLength(1);
  });
});
