import { describe, expect, it } from "vitest";
import { finding as sampleFinding } from "../../test/store/samples.js";
import type { Finding } from "../domain/types.js";
import { parseStoredReviewIssues, toStoredReviewIssues } from "./stored-issues.js";

function f(id: string, over: Partial<Finding>): Finding {
  return sampleFinding("t", id, {
    fingerprint: "",
    category: "c",
    title: `title ${id}`,
    body: "b",
    file: "src/a.ts",
    lineStart: 3,
    lineEnd: null,
    sources: [{ source: "review:security", cycle: 0 }],
    createdAt: 0,
    updatedAt: 0,
    ...over,
  });
}

describe("stored review issues", () => {
  it("keeps only blocking findings still in play, and round-trips through JSON", () => {
    const findings = [
      f("F-1", { severity: "P0" }),
      f("F-2", { severity: "P2" }),
      f("F-3", { status: "resolved" }),
      f("F-4", { status: "fixed", file: null, lineStart: null }),
      f("F-5", { status: "blocked" }),
    ];
    const stored = toStoredReviewIssues(findings, "P1");
    expect(stored.map((s) => s.id)).toEqual(["F-1", "F-4"]);
    expect(stored[0]).toEqual({
      id: "F-1",
      file: "src/a.ts",
      lineStart: 3,
      lineEnd: 3,
      severity: "P0",
      title: "title F-1",
      body: "b",
      reviewer: "review:security",
    });
    expect(stored[1]).toMatchObject({ file: "unknown", lineStart: 0, lineEnd: 0 });
    expect(parseStoredReviewIssues(JSON.stringify(stored))).toEqual(stored);
  });

  it("reads old, partial and foreign shapes without failing", () => {
    expect(parseStoredReviewIssues(undefined)).toEqual([]);
    expect(parseStoredReviewIssues("{not json")).toEqual([]);
    expect(parseStoredReviewIssues({ issues: [] })).toEqual([]);
    const parsed = parseStoredReviewIssues([
      { file: "a.py", line_start: "12", priority: 0, title: "Crash", extra: true },
      {},
      "garbage",
      null,
    ]);
    expect(parsed).toEqual([
      {
        id: "",
        file: "a.py",
        lineStart: 12,
        lineEnd: 12,
        severity: "P0",
        title: "Crash",
        body: "",
        reviewer: "unknown",
      },
      {
        id: "",
        file: "unknown",
        lineStart: 0,
        lineEnd: 0,
        severity: "P1",
        title: "Unknown issue",
        body: "",
        reviewer: "unknown",
      },
    ]);
  });
});
