import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thousands } from "./format.js";

describe("thousands", () => {
  it("groups a number's digits as toLocaleString('en') does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -999, max: 999 })), (n) => {
        expect(thousands(n)).toBe(n.toLocaleString("en"));
      }),
    );
    for (const n of [0, 7, 999, 1000, 25_000, 100_000, 1_234_567, -1000, 2 ** 53 + 2, 1.5]) {
      expect(thousands(n)).toBe(n.toLocaleString("en"));
    }
  });
});
