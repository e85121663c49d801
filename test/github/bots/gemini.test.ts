import { describe, expect, it } from "vitest";
import { expectClean, inline, reviewBody } from "./fixture.js";

const BOT = "gemini-code-assist";

describe("Gemini Code Assist adapter", () => {
  it.each([
    ["inline-critical.md", "P0"],
    ["inline-high.md", "P1"],
    ["inline-medium.md", "P2"],
  ])("%s → %s, the title is prose and not the image", (file, severity) => {
    const { finding, warning } = inline(BOT, "gemini", file);
    expect(warning).toBeUndefined();
    expect(finding.severity).toBe(severity);
    expect(finding.title).not.toMatch(/gstatic|svg|priority|^(?:high|medium|critical)$/i);
    expectClean(finding);
  });

  it("keeps the suggestion block apart from the explanation", () => {
    const { finding } = inline(BOT, "gemini", "inline-high.md");
    expect(finding.title).toBe(
      "The SQL query is built by concatenating req.params.id, which allows injection",
    );
    expect(finding.suggestion).toContain("WHERE id = ?");
    expect(finding.body).not.toContain("suggestion");
  });

  it("turns the findings list of a review summary into findings, and prose alone into none", () => {
    const found = reviewBody(BOT, "gemini", "review-body.md");
    expect(found.map((f) => [f.severity, f.title, f.path, f.line])).toEqual([
      ["P3", "Cache key ignores the locale", "src/catalog/cache.ts", 41],
      ["P2", "Unbounded cache growth", undefined, undefined],
    ]);
    for (const f of found) expectClean(f);
    expect(reviewBody(BOT, "gemini", "summary-only.md")).toEqual([]);
  });
});
