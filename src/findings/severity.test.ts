import { describe, expect, it } from "vitest";
import { compareSeverity, isBlocking, parseSeverity } from "./severity.js";

describe("severities", () => {
  it("reads the P-scale in any case and the aliases reviewers use", () => {
    expect(["P0", "p1", " P2 ", "3"].map(parseSeverity)).toEqual(["P0", "P1", "P2", "P3"]);
    expect(
      ["Critical", "HIGH", "major", "medium", "Minor", "low", "nit", "nitpick", "trivial"].map(parseSeverity),
    ).toEqual(["P0", "P1", "P1", "P2", "P2", "P3", "P3", "P3", "P3"]);
    expect(parseSeverity("urgent-ish")).toBeNull();
    expect(parseSeverity(undefined)).toBeNull();
  });

  it("blocks at or above the threshold and sorts most severe first", () => {
    expect(isBlocking("P0", "P1")).toBe(true);
    expect(isBlocking("P1", "P1")).toBe(true);
    expect(isBlocking("P2", "P1")).toBe(false);
    expect((["P3", "P0", "P2", "P1"] as const).slice().sort(compareSeverity)).toEqual([
      "P0",
      "P1",
      "P2",
      "P3",
    ]);
  });
});
