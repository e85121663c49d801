import { describe, expect, it } from "vitest";
import { expectClean, inline } from "./fixture.js";

describe("Cursor Bugbot adapter", () => {
  it("reads the heading, the severity, the first location, and drops ids and buttons", () => {
    const { finding, warning } = inline("cursor", "bugbot", "high.md");
    expect(warning).toBeUndefined();
    expect(finding.severity).toBe("P1");
    expect(finding.title).toBe("Retry loop never gives up on permanent errors");
    expect(finding.body).toBe(
      "The retry wrapper retries every error, including 400 responses that will never succeed, so a bad request spins until the job times out.",
    );
    expect([finding.path, finding.line, finding.lineEnd]).toEqual(["src/net/retry.ts", 18, 27]);
    expectClean(finding);
  });

  it("reads a heading without `Bug:` and a visible severity line", () => {
    const { finding } = inline("cursor", "bugbot", "medium-visible.md");
    expect(finding.severity).toBe("P2");
    expect(finding.title).toBe("Stale cache entry survives a rename");
    expect(finding.body).not.toMatch(/severity/i);
  });

  it("reads the older bold `**Bug: …**` title and a severity inside an HTML comment", () => {
    const { finding, warning } = inline("cursor", "bugbot", "bold-bug.md");
    expect(warning).toBeUndefined();
    expect([finding.severity, finding.title]).toEqual(["P3", "Timezone dropped when parsing the due date"]);
    expect(finding.body).toMatch(/^`new Date\(y, m, d\)` builds a local date/);
    expectClean(finding);
  });
});
