import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizedDistance, normalizeTitle } from "./fingerprint.js";
import { judgeJustification, matchBlockedReason, WEAK_PHRASES } from "./fix-validate.js";

describe("weak justifications", () => {
  it("flags empty, stock and near-stock excuses", () => {
    for (const j of [
      "",
      "   ",
      "Out of scope.",
      "out-of-scope",
      "outta scope",
      "Will do later",
      "later",
      "not needed",
      "N/A",
      "too complex to do now",
      "Won't fix",
      "ok",
    ]) {
      expect(judgeJustification(j).weak, j).toBe(true);
    }
  });

  it("accepts justifications with concrete detail, even when they use a stock word", () => {
    for (const j of [
      "Fixing this needs the schema change in db/migrations/0042.sql, which must land later with the DBA's review (#311).",
      "The suggested fix conflicts with the retry policy in src/net/retry.ts; changing it breaks the contract tests.",
      "Requires upgrading better-sqlite3 to 12.x for the new backup API",
    ]) {
      expect(judgeJustification(j), j).toEqual({ weak: false });
    }
  });
});

describe("blocked reasons", () => {
  it("matches the accepted reasons leniently", () => {
    expect(matchBlockedReason("needs_human_decision")).toBe("needs a human decision");
    expect(matchBlockedReason("External-Dependency")).toBe("external dependency");
    expect(matchBlockedReason("contradicts task")).toBe("contradicts the task");
    expect(matchBlockedReason("file_no_longer_exists")).toBe("file no longer exists");
    expect(matchBlockedReason("out of scope")).toBeNull();
    expect(matchBlockedReason(undefined)).toBeNull();
  });
});

describe("a justification near a stock phrase", () => {
  it("property: one a few edits from a stock phrase is weak, however the lengths are compared first", () => {
    const edit = fc.tuple(fc.nat(), fc.constantFrom("", "a", "x", " ", "s"));
    fc.assert(
      fc.property(fc.constantFrom(...WEAK_PHRASES), fc.array(edit, { maxLength: 3 }), (phrase, edits) => {
        let text: string = phrase;
        for (const [at, ch] of edits) {
          const i = at % (text.length + 1);
          text = `${text.slice(0, i)}${ch}${text.slice(i + (ch === "" ? 1 : 0))}`;
        }
        const n = normalizeTitle(text.replace(/'/g, "").replace(/[_-]+/g, " "));
        if (WEAK_PHRASES.some((p) => normalizedDistance(n, p) < 0.3))
          expect(judgeJustification(text).weak).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
