import { describe, expect, it } from "vitest";
import { expectClean, inline, reviewBody } from "./fixture.js";

const BOT = "copilot-pull-request-reviewer";

describe("Copilot adapter", () => {
  it("reads plain prose as a P2 with its suggestion", () => {
    const { finding, warning } = inline(BOT, "copilot", "inline.md");
    expect(warning).toBeUndefined();
    expect(finding.severity).toBe("P2");
    expect(finding.title).toMatch(
      /^The loop compares i <= rows\.length, which reads one element past the end/,
    );
    expect(finding.suggestion).toBe("for (let i = 0; i < rows.length; i++) {");
    expect(finding.body).not.toContain("```");
    expectClean(finding);
  });

  it("reads [nitpick] as P3 and drops the tag from the title", () => {
    const { finding } = inline(BOT, "copilot", "nitpick.md");
    expect(finding.severity).toBe("P3");
    expect(finding.title).toBe("The variable name tmp2 says nothing about what it holds; parsedHeader would");
  });

  it("turns the low-confidence section of the review body into P3 findings with their places", () => {
    const found = reviewBody(BOT, "copilot", "review-body.md");
    expect(found.map((f) => [f.severity, f.path, f.line, f.lineEnd])).toEqual([
      ["P3", "src/api/orders.ts", 57, 57],
      ["P3", "src/client/paginate.ts", 21, 23],
    ]);
    expect(found[0]?.title).toBe(
      "per_page is not capped, so a caller can ask for a million rows in one request",
    );
    expect(found[0]?.body).not.toContain("const perPage");
    for (const f of found) expectClean(f);
  });
});
