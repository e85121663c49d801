import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replaceEach } from "./replace-each.js";

describe("replaceEach", () => {
  it("gives what String.replace gives with the same replacement, empty matches included", () => {
    const text = fc.string({
      unit: fc.constantFrom("_", "a", " ", "[", "]", "(", ")", "\n", "b"),
      maxLength: 60,
    });
    const cases: [RegExp, string, (m: RegExpExecArray) => string][] = [
      [/(^|\s)_([^_\n]{1,5})_(?=\s|$)/g, "$1$2", (m) => `${m[1]}${m[2]}`],
      [/\[([^\][]*)\]\([^()\s]*\)/g, "$1", (m) => m[1] ?? ""],
      [/a*/g, "<$&>", (m) => `<${m[0]}>`],
      [/\b/g, "|", () => "|"],
      [/B/gi, "x", () => "x"],
    ];
    fc.assert(
      fc.property(text, (t) => {
        for (const [re, replacement, f] of cases)
          expect(replaceEach(t, re, f), `${re}`).toBe(t.replace(re, replacement));
      }),
      { numRuns: 500 },
    );
  });

  it("leaves the regex ready for its next use and refuses one that is not global", () => {
    const re = /a/g;
    expect(replaceEach("banana", re, () => "o")).toBe("bonono");
    expect(re.lastIndex).toBe(0);
    expect(replaceEach("banana", re, () => "")).toBe("bnn");
    expect(() => replaceEach("a", /a/, () => "")).toThrow(/global/);
  });

  it("puts back 13,107 captures of GitHub's largest comment", () => {
    const t = `${"_a_  ".repeat(13_107)}x`;
    expect(replaceEach(t, /(^|\s)_([^_\n]{1,500})_(?=\s|$)/g, (m) => `${m[1]}${m[2]}`)).toBe(
      `${"a  ".repeat(13_107)}x`,
    );
  });
});
