import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tidy } from "./markdown.js";

/** What `tidy` did before it went line by line (quadratic on long inputs, exact on short ones). */
function tidyByRegex(text: string): string {
  return text
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/(\n\s*(---|\*\*\*|___)\s*)+$/g, "")
    .trim();
}

describe("tidy", () => {
  it("gives what the regex form gives, on every short text of rules, blanks and words", () => {
    const piece = fc.constantFrom(
      "\n",
      "---",
      "***",
      "___",
      "----",
      " ",
      "\t",
      "\r",
      "\u2028",
      "a",
      "-",
      "word",
    );
    const text = fc.array(piece, { maxLength: 30 }).map((xs) => xs.join(""));
    fc.assert(
      fc.property(text, (t) => {
        expect(tidy(t)).toBe(tidyByRegex(t));
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps a rule on the first line and drops every rule that ends the text", () => {
    expect(tidy("---")).toBe("---");
    expect(tidy("finding\n\n---\n  ***  \n\n___\n")).toBe("finding");
    expect(tidy("a\n---\nb")).toBe("a\n---\nb");
  });

  it("takes a megabyte of rules and space runs in one pass", () => {
    const rules = `x${"\n--- ".repeat(200_000)}y`;
    const spaces = `x${" ".repeat(1_000_000)}y\n---`;
    expect(tidy(rules)).toBe(rules.replace(/ \n/g, "\n"));
    expect(tidy(spaces)).toBe(`x${" ".repeat(1_000_000)}y`);
  });
});
