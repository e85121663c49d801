import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { PullReview } from "../../src/domain/github.js";
import { botDefaults } from "../../src/github/bots/registry.js";
import { reviewFindings } from "../../src/github/stage/review-findings.js";

const review = (
  id: number,
  author: string,
  authorIsBot: boolean,
  state: PullReview["state"],
  body: string,
): PullReview => ({
  id,
  author,
  authorIsBot,
  state,
  body,
  submittedAt: null,
});
const fixture = (bot: string, file: string) =>
  readFileSync(new URL(`./bots/${bot}/${file}`, import.meta.url), "utf8");

describe("findings in review bodies", () => {
  it("reads the findings bots put in review bodies, with their places, and ignores their summaries", () => {
    const found = reviewFindings(
      [
        review(1, "copilot-pull-request-reviewer", true, "COMMENTED", fixture("copilot", "review-body.md")),
        review(
          2,
          "coderabbitai",
          true,
          "CHANGES_REQUESTED",
          "**Actionable comments posted: 2**\n\n<details>\n<summary>📜 Review details</summary>\n\nconfig\n</details>",
        ),
        review(3, "gemini-code-assist", true, "COMMENTED", fixture("gemini", "summary-only.md")),
      ],
      botDefaults(),
    );
    expect(
      found.map((r) => [
        r.origin.source,
        r.finding.severity,
        r.finding.file,
        r.finding.lineStart,
        r.finding.lineEnd,
      ]),
    ).toEqual([
      ["pr-review:1", "P3", "src/api/orders.ts", 57, 57],
      ["pr-review:1", "P3", "src/client/paginate.ts", 21, 23],
    ]);
    expect(found[0]?.finding.body).toMatch(/^@copilot-pull-request-reviewer:\n`per_page` is not capped/);
  });

  it("keeps a person's request for changes whole, and an unknown bot's with a warning", () => {
    const found = reviewFindings(
      [
        review(4, "alice", false, "CHANGES_REQUESTED", "**High**: the migration is not reversible."),
        review(5, "acme-reviewer", true, "CHANGES_REQUESTED", "Please split this change."),
        review(6, "bob", false, "COMMENTED", "Looks fine overall."),
      ],
      botDefaults({ "acme-reviewer": { severity: "P1" } }),
    );
    expect(found.map((r) => [r.origin.source, r.finding.severity, r.finding.title])).toEqual([
      ["pr-review:4", "P1", "the migration is not reversible"],
      ["pr-review:5", "P1", "Please split this change"],
    ]);
    expect(found[1]?.botWarning).toEqual({ bot: "acme-reviewer", firstLine: "Please split this change." });
  });
});
