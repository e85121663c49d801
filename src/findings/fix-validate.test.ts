import { describe, expect, it } from "vitest";
import { judgeJustification, matchBlockedReason } from "./fix-validate.js";

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
