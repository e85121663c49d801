import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trimTrailing } from "./trim.js";

describe("trimTrailing", () => {
  it("removes exactly what /[chars]+$/ removes", () => {
    const text = fc.string({ unit: fc.constantFrom("\n", "/", " ", "\t", "a", "\r"), maxLength: 40 });
    fc.assert(
      fc.property(text, (t) => {
        expect(trimTrailing(t, "\n")).toBe(t.replace(/\n+$/, ""));
        expect(trimTrailing(t, " \t")).toBe(t.replace(/[ \t]+$/, ""));
      }),
    );
  });

  it("is linear on a long run that does not reach the end", () => {
    const text = `${"\n".repeat(2_000_000)}x\n\n`;
    expect(trimTrailing(text, "\n")).toBe(text.slice(0, -2));
  });
});
