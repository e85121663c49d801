import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trimLineEnds, trimTrailing } from "./trim.js";

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

describe("trimLineEnds", () => {
  it("trims each line as a replace of every line with its regex-trimmed self does", () => {
    const text = fc.string({
      unit: fc.constantFrom("\n", "\r", "\u2028", "\u2029", " ", "\t", "a"),
      maxLength: 40,
    });
    fc.assert(
      fc.property(text, (t) => {
        const byRegex = t.replace(/[^\n\r\u2028\u2029]+/g, (line) => line.replace(/[ \t]+$/, ""));
        expect(trimLineEnds(t, " \t")).toBe(byRegex);
      }),
    );
  });

  it("is linear on a long run of spaces that ends no line, and on many short lines", () => {
    const run = `${" ".repeat(1_000_000)}x \n`;
    expect(trimLineEnds(run, " \t")).toBe(`${" ".repeat(1_000_000)}x\n`);
    expect(trimLineEnds("a \t\n".repeat(100_000), " \t")).toBe("a\n".repeat(100_000));
  });
});
