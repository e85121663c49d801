import { describe, expect, it } from "vitest";
import { expectClean, inline, reviewBody } from "./fixture.js";

const BOT = "coderabbitai";

describe("CodeRabbit adapter", () => {
  it("reads the level of the severity line and keeps the suggestion and the agent prompt apart", () => {
    const { finding, adapter, warning } = inline(BOT, "coderabbit", "inline-major.md");
    expect(adapter).toBe("coderabbit");
    expect(warning).toBeUndefined();
    expect(finding.severity).toBe("P1");
    expect(finding.category).toBe("correctness");
    expect(finding.title).toBe("Guard against an empty cart before computing the discount");
    expect(finding.body).toContain("an empty cart yields `NaN`");
    expect(finding.body).not.toContain("rg -n");
    expect(finding.suggestion).toBe("  if (items.length === 0) return 0;\n  return total / items.length;");
    expect(finding.agentPrompt).toContain("return 0 early when the cart is empty");
    expectClean(finding);
  });

  it.each([
    ["critical.md", "P0", "The session token is written to the log in plain text"],
    ["refactor-minor.md", "P2", "Split the parser from the printer"],
    ["nitpick.md", "P3", "Prefer a named constant for the retry limit"],
    ["shortcode.md", "P1", "The retry counter is never reset after a success"],
  ])("%s → %s", (file, severity, title) => {
    const { finding } = inline(BOT, "coderabbit", file);
    expect(finding.severity).toBe(severity);
    expect(finding.title).toBe(title);
    expectClean(finding);
  });

  it("turns the outside-diff and nitpick sections of a review body into placed findings, skipping duplicates", () => {
    const found = reviewBody(BOT, "coderabbit", "review-body.md");
    expect(found.map((f) => [f.severity, f.path, f.line, f.lineEnd, f.title])).toEqual([
      [
        "P1",
        "src/server/routes.ts",
        88,
        93,
        "The health route skips the auth middleware it was meant to bypass only in tests",
      ],
      ["P3", "src/util/format.ts", 10, 12, "Drop the unused locale parameter"],
      ["P3", "src/util/format.ts", 40, 40, "Name the magic number"],
    ]);
    expect(found[2]?.agentPrompt).toContain("replace 86400");
    for (const f of found) expectClean(f);
  });

  it("finds nothing in a walkthrough", () => {
    expect(reviewBody(BOT, "coderabbit", "walkthrough.md")).toEqual([]);
  });

  it("warns when a CodeRabbit comment has no severity line it knows", () => {
    const r = inline(BOT, "coderabbit", "walkthrough.md");
    expect(r.warning?.bot).toBe(BOT);
    expect(r.warning?.firstLine).toBe("Walkthrough");
    expect(r.finding.severity).toBe("P2");
  });
});
