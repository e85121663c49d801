import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eachLine, findLine, firstLineOf, mapLines } from "./lines.js";

const text = fc.string({ unit: fc.constantFrom("\n", "\r", "a", " ", "-", "\u2028"), maxLength: 60 });

describe("lines", () => {
  it("visits what split gives, in order, and stops where it is told", () => {
    fc.assert(
      fc.property(text, fc.nat(10), (t, stopAt) => {
        const all: string[] = [];
        eachLine(t, (line) => {
          all.push(line);
          return false;
        });
        expect(all).toEqual(t.split("\n"));
        const some: string[] = [];
        eachLine(t, (line) => {
          some.push(line);
          return some.length === stopAt + 1;
        });
        expect(some).toEqual(t.split("\n").slice(0, stopAt + 1));
      }),
    );
  });

  it("finds, takes the first line and maps as split, find and join do", () => {
    const pred = (l: string) => l.trim() === "a";
    const f = (l: string) => (l.includes("-") ? null : `<${l}>`);
    fc.assert(
      fc.property(text, (t) => {
        expect(findLine(t, pred)).toBe(t.split("\n").find(pred));
        expect(firstLineOf(t)).toBe(t.split("\n")[0]);
        const mapped = t
          .split("\n")
          .map(f)
          .filter((l): l is string => l !== null)
          .join("\n");
        expect(mapLines(t, f)).toBe(mapped);
      }),
    );
  });

  it("reads a comment of 65,536 lines as one of a few", () => {
    const t = `${"\t\n".repeat(65_536)}last`;
    expect(findLine(t, (l) => l === "last")).toBe("last");
    expect(mapLines(t, (l) => (l === "\t" ? null : l))).toBe("last");
  });
});
