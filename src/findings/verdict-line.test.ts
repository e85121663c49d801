import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReviewVerdict } from "../domain/types.js";
import { parseVerdict } from "./lenient.js";
import { verdictLine } from "./verdict-line.js";

/** The regex verdictLine replaces: right, but quadratic on untrusted text. */
const OLD = /^[\s>#*_-]*verdict[\s*_]*[:：][\s*_`]*([A-Za-z][A-Za-z _-]*?)[\s*_`.]*$/gim;

function byRegex(text: string): { verdict: ReviewVerdict; at: number } | null {
  let found: { verdict: ReviewVerdict; at: number } | null = null;
  for (const m of text.matchAll(OLD)) {
    const verdict = parseVerdict(m[1]);
    if (verdict) found = { verdict, at: m.index ?? 0 };
  }
  return found;
}

/** Texts built from the pieces that matter to the pattern, so matches and near misses are common. */
const PIECES = [
  "verdict",
  "Verdict",
  "VERDICT",
  "verdict:",
  "Verdict: ",
  "**Verdict:** ",
  "## ",
  "> ",
  ":",
  "：",
  "approved",
  "APPROVED",
  "changes requested",
  "CHANGES_REQUESTED",
  "needs-discussion",
  "lgtm",
  "reject",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\u2028",
  "\u00a0",
  "\u3000",
  "*",
  "**",
  "_",
  "-",
  "---",
  "#",
  "`",
  ".",
  "!",
  "x",
  "İ",
  "ı",
  "ſ",
  "é",
];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((xs) => xs.join(""));

describe("verdictLine", () => {
  it("finds what the regex it replaces finds, at the same place", () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(verdictLine(t)).toEqual(byRegex(t));
      }),
      { numRuns: 3000 },
    );
  });

  it("finds the same in arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (t) => {
        expect(verdictLine(t)).toEqual(byRegex(t));
      }),
      { numRuns: 1000 },
    );
  });

  it("reads the usual forms, the last one winning", () => {
    // The match starts at the blank line above: only whitespace and markup separate it.
    expect(verdictLine("Looks fine.\n\n**Verdict: APPROVED**\n")).toEqual({ verdict: "APPROVED", at: 12 });
    expect(verdictLine("## Verdict: changes requested\nthen\nVerdict: approved")?.verdict).toBe("APPROVED");
    expect(verdictLine("no verdict here")).toBeNull();
  });

  it("stays linear on the inputs that made the regex quadratic", () => {
    // Each took the regex minutes or more; here each is one pass.
    const blank = `${"\n".repeat(1_000_000)}x`;
    const line = `Verdict: a${" _".repeat(500_000)}!`;
    const dashes = `${"-\n".repeat(500_000)}Verdict: APPROVED`;
    const many = "verdict verdict:\n".repeat(100_000);
    expect(verdictLine(blank)).toBeNull();
    expect(verdictLine(line)).toBeNull();
    expect(verdictLine(dashes)).toEqual({ verdict: "APPROVED", at: 0 });
    expect(verdictLine(many)).toBeNull();
  });
});
