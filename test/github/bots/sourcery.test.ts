import { describe, expect, it } from "vitest";
import { parseBotComment } from "../../../src/github/bots/registry.js";
import { expectClean, fixture, inline, reviewBody } from "./fixture.js";

const BOT = "sourcery-ai";

describe("Sourcery adapter", () => {
  it.each([
    ["bug-risk.md", "P1", "correctness", "The temporary file is deleted before the retry reads it again"],
    ["security.md", "P2", "security", "Compare the webhook signature in constant time"],
    ["nitpick.md", "P3", "style", 'Typo in the error message: "recieved"'],
    ["prefix-alone.md", "P3", "tests", "Add a test where the upload is retried after the first chunk fails"],
  ])("%s → %s", (file, severity, category, title) => {
    const { finding, warning } = inline(BOT, "sourcery", file);
    expect(warning).toBeUndefined();
    expect([finding.severity, finding.category, finding.title]).toEqual([severity, category, title]);
    expectClean(finding);
  });

  it("does not turn praise into a finding", () => {
    expect(
      parseBotComment({ author: BOT, authorIsBot: true, body: fixture("sourcery", "praise.md") }).finding,
    ).toBeNull();
  });

  it("takes the overall comments of a review body, not the individual ones it also posts inline", () => {
    const found = reviewBody(BOT, "sourcery", "review-body.md");
    expect(found.map((f) => [f.severity, f.title])).toEqual([
      ["P3", "Consider moving the retry policy into configuration so operators can tune it"],
      ["P2", "No test covers the path where the upload is retried"],
    ]);
  });
});
