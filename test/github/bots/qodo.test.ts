import { describe, expect, it } from "vitest";
import { expectClean, inline } from "./fixture.js";

const BOT = "qodo-merge-pro";

describe("Qodo Merge adapter", () => {
  it("maps importance 8 to P2 and keeps the suggestion apart", () => {
    const { finding, warning } = inline(BOT, "qodo", "suggestion.md");
    expect(warning).toBeUndefined();
    expect(finding.severity).toBe("P2");
    expect(finding.title).toBe(
      "Validate the page size before using it in the query to avoid unbounded reads",
    );
    expect(finding.body).not.toMatch(/importance/);
    expect(finding.suggestion).toContain("Math.min");
    expectClean(finding);
  });

  it("maps “Action required” to P1 and titles the finding with its bold line", () => {
    const { finding } = inline(BOT, "qodo", "action-required.md");
    expect(finding.severity).toBe("P1");
    expect(finding.title).toBe("Token compared with ==");
    expect(finding.body).toMatch(/^The API key check uses/);
    expectClean(finding);
  });
});
