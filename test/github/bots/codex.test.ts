import { describe, expect, it } from "vitest";
import { expectClean, inline, reviewBody } from "./fixture.js";

const BOT = "chatgpt-codex-connector";

describe("Codex adapter", () => {
  it.each([
    ["inline-p1.md", "P1", "Release the lock when the upload fails"],
    ["inline-p3.md", "P3", "Log message names the wrong queue"],
  ])("%s: the badge inside <sub> gives %s and the title is the text beside it", (file, severity, title) => {
    const { finding, warning } = inline(BOT, "codex", file);
    expect(warning).toBeUndefined();
    expect(finding.severity).toBe(severity);
    expect(finding.title).toBe(title);
    expect(finding.body).not.toContain(title);
    expectClean(finding);
  });

  it("recognises the badge even under another login", () => {
    const { finding, adapter } = inline("acme-codex", "codex", "inline-p1.md");
    expect(adapter).toBe("codex");
    expect(finding.severity).toBe("P1");
  });

  it("reads findings placed by permalink in a review body and ignores a clean summary", () => {
    const found = reviewBody(BOT, "codex", "review-body.md");
    expect(found.map((f) => [f.severity, f.path, f.line, f.lineEnd, f.title])).toEqual([
      ["P0", "src/jobs/cleanup.ts", 30, 34, "Cleanup deletes live carts"],
    ]);
    expectClean(found[0] ?? { title: "", body: "" });
    expect(reviewBody(BOT, "codex", "summary-only.md")).toEqual([]);
  });
});
