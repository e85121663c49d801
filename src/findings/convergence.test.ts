import { describe, expect, it } from "vitest";
import { finding as sampleFinding } from "../../test/store/samples.js";
import type { Finding } from "../domain/types.js";
import { finalReason, noProgress } from "./convergence.js";

describe("noProgress", () => {
  it("needs three samples where the last two cycles did not decrease", () => {
    expect(noProgress([], 0)).toBe(false);
    expect(noProgress([4, 4], 0)).toBe(false);
    expect(noProgress([4, 4, 4], 0)).toBe(true);
    expect(noProgress([4, 4, 5], 0)).toBe(true);
    expect(noProgress([5, 4, 4], 0)).toBe(false);
    expect(noProgress([4, 5, 4], 0)).toBe(false);
    expect(noProgress([9, 3, 2, 2, 3], 0)).toBe(true);
  });

  it("is true when some finding was reopened twice", () => {
    expect(noProgress([5, 3], 1)).toBe(false);
    expect(noProgress([5, 3], 2)).toBe(true);
  });
});

function f(id: string, over: Partial<Finding>): Finding {
  return sampleFinding("t", id, {
    fingerprint: "",
    category: "c",
    title: "t",
    body: "",
    file: null,
    lineStart: null,
    lineEnd: null,
    sources: [],
    createdAt: 0,
    updatedAt: 0,
    ...over,
  });
}

describe("finalReason", () => {
  const base = { blockingSeverity: "P1" as const, cycles: 3, blockingHistory: [4, 4, 5] };

  it("names the open blocking findings when cycles ran out", () => {
    const findings = [
      f("F-2", {}),
      f("F-5", { status: "fixed" }),
      f("F-7", { status: "deferred" }),
      f("F-8", { severity: "P3" }),
    ];
    expect(finalReason("MAX_CYCLES_REACHED", { ...base, findings })).toBe(
      "3 blocking findings still open after 3 fix cycles (F-2, F-5, F-7)",
    );
  });

  it("says why blocked findings are blocked", () => {
    const attempts = [
      {
        cycle: 1,
        status: "blocked" as const,
        justification: "needs a human decision: which API?",
        commitSha: null,
        at: 0,
      },
    ];
    const findings = [f("F-3", { status: "blocked", attempts }), f("F-4", { status: "resolved" })];
    expect(finalReason("BLOCKED", { ...base, findings })).toBe(
      "every remaining blocking finding is blocked (F-3: needs a human decision)",
    );
  });

  it("explains no progress by history or by reopens", () => {
    expect(finalReason("NO_PROGRESS", { ...base, findings: [f("F-1", {})] })).toBe(
      "no progress: open blocking findings 4 → 4 → 5 over the last two cycles",
    );
    expect(finalReason("NO_PROGRESS", { ...base, findings: [f("F-6", { timesReopened: 2 })] })).toBe(
      "no progress: F-6 was reopened 2 times",
    );
  });
});
