import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["30s", 30_000],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["500ms", 500],
    ["1m500ms", 60_500],
    ["1.5h", 5_400_000],
    ["2d", 172_800_000],
    [" 45s ", 45_000],
    ["0s", 0],
  ])("reads %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "30", "10 m", "m", "1h30", "-5s", "5x", "1hh"])("rejects %j", (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe("formatDuration", () => {
  it.each([
    [45_000, "45s"],
    [600_000, "10m"],
    [5_400_000, "1h30m"],
    [3_661_000, "1h1m1s"],
    [500, "500ms"],
    [0, "0ms"],
    [90_400, "1m30s400ms"],
    [86_400_000, "1d"],
  ])("writes %d ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("round-trips through parseDuration", () => {
    for (const ms of [1, 1000, 59_000, 61_000, 90_400, 3_600_000, 5_430_000, 5_400_500, 90_061_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
