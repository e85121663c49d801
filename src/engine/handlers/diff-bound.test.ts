import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FixpointError } from "../../errors.js";
import { escapeFences } from "../../findings/fence.js";
import { diffShare } from "../prompt-budget.js";
import { boundDiffWithin, MIN_DIFF_BYTES } from "./diff-bound.js";

const SHOW = "fixpoint diff t-7";
const bytes = (t: string) => Buffer.byteLength(escapeFences(t), "utf8");

function fileDiff(name: string, lines: string[]): string {
  return [
    `diff --git a/${name} b/${name}`,
    `--- a/${name}`,
    `+++ b/${name}`,
    `@@ -1,${lines.length} +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
  ].join("\n");
}

const diffOf = (files: [string, string[]][]) => `${files.map(([n, l]) => fileDiff(n, l)).join("\n")}\n`;

describe("boundDiffWithin", () => {
  it("keeps a diff that fits byte for byte", () => {
    const diff = diffOf([["a.ts", ["x", "y"]]]);
    expect(boundDiffWithin(diff, 10_000, SHOW)).toEqual({ text: diff, summarised: 0 });
    expect(boundDiffWithin("  \n", 10_000, SHOW).text).toBe("(empty diff)");
  });

  it("summarises the largest files first, in their place, and names the command that shows them", () => {
    const diff = diffOf([
      ["small.ts", ["a"]],
      ["huge.ts", Array.from({ length: 400 }, (_, i) => `line ${i} of a long file`)],
      ["medium.ts", Array.from({ length: 20 }, (_, i) => `m${i}`)],
    ]);
    const out = boundDiffWithin(diff, 2_000, SHOW);
    expect(bytes(out.text)).toBeLessThanOrEqual(2_000);
    expect(out.summarised).toBe(1);
    expect(out.text).toContain(fileDiff("small.ts", ["a"]));
    expect(out.text).toContain("+m19");
    expect(out.text).toContain("huge.ts | +400 -0 lines");
    expect(out.text).not.toContain("line 7 of a long file");
    // git's order is kept: the summary stands where the file stood.
    expect(out.text.indexOf("small.ts")).toBeLessThan(out.text.indexOf("huge.ts |"));
    expect(out.text.indexOf("huge.ts |")).toBeLessThan(out.text.indexOf("medium.ts"));
    expect(out.text).toContain("1 of 3 files shown as a stat line only");
    expect(out.text).toContain(`\`${SHOW}\` shows the whole diff`);
  });

  it("names as many files as fit when even the stat lines are too long, and counts the rest", () => {
    const files: [string, string[]][] = Array.from({ length: 300 }, (_, i) => [`src/module-${i}.ts`, ["x"]]);
    const out = boundDiffWithin(diffOf(files), 1_000, SHOW);
    expect(bytes(out.text)).toBeLessThanOrEqual(1_000);
    expect(out.text).toContain("src/module-0.ts | +1 -0 lines");
    expect(out.text).toMatch(/300 of 300 files shown as a stat line only \(\d+ not even named\)/);
  });

  it("property: within the limit, deterministic, git order, every file whole or accounted for", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_/.-]{0,20}$/);
    const line = fc.string({ maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, " "));
    const file = fc.tuple(name, fc.array(line, { minLength: 1, maxLength: 40 }));
    fc.assert(
      fc.property(
        fc.array(file, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: MIN_DIFF_BYTES, max: 20_000 }),
        (files, max) => {
          const diff = diffOf(files);
          const out = boundDiffWithin(diff, max, SHOW);
          expect(bytes(out.text)).toBeLessThanOrEqual(max);
          expect(boundDiffWithin(diff, max, SHOW)).toEqual(out);
          if (out.summarised === 0) {
            expect(out.text).toBe(diff);
            return;
          }
          expect(out.text).toContain(SHOW);
          // Whole files appear verbatim, in git order; the rest are counted in the trailer.
          let at = 0;
          let whole = 0;
          for (const [n, l] of files) {
            const section = fileDiff(n, l);
            const i = out.text.indexOf(`${section}\n`, at);
            if (
              i >= 0 &&
              out.text.slice(i + section.length + 1).match(/^(diff --git |\[diff cut|.* \| \+)/)
            ) {
              at = i + section.length;
              whole++;
            }
          }
          expect(whole).toBeGreaterThanOrEqual(files.length - out.summarised);
          expect(out.text).toContain(`${out.summarised} of ${files.length} file`);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("diffShare", () => {
  it("gives the diffs half the budget when the fixed part is small", () => {
    expect(diffShare({ bytes: 64 * 1024, key: "defaults prompt-budget" }, 5_000)).toBe(32 * 1024);
  });

  it("refuses a budget that leaves no room for a diff, naming the key", () => {
    const tooSmall = () => diffShare({ bytes: 4_096, key: 'agent "reviewer" prompt-budget' }, 3_500);
    expect(tooSmall).toThrow(FixpointError);
    expect(tooSmall).toThrow(/agent "reviewer" prompt-budget of 4096 bytes is too small for a review prompt/);
    expect(tooSmall).toThrow(/raise `agent "reviewer" prompt-budget`/);
  });
});
