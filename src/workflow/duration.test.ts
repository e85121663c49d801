import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("reads unit strings and combinations", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("10m")).toBe(600_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("250ms")).toBe(250);
    expect(parseDuration("2m30s")).toBe(150_000);
  });

  it("takes a plain number as milliseconds", () => {
    expect(parseDuration(1500)).toBe(1500);
  });

  it("rejects anything else, including zero", () => {
    for (const bad of ["", "10", "10 minutes", "m", "1w", "0s", "30s!"])
      expect(parseDuration(bad)).toBeUndefined();
    expect(parseDuration(0)).toBeUndefined();
    expect(parseDuration(-5)).toBeUndefined();
  });
});
