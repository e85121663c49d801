import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineSplitter } from "./line-splitter.js";

/** The lines a whole text holds, as the splitter promises them: `\n` only, one `\r` dropped. */
function linesOf(text: string): string[] {
  const parts = text.split("\n");
  const last = parts.pop() ?? "";
  if (last !== "") parts.push(last);
  return parts.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** Feeds `bytes` to a splitter cut at `cuts` (byte offsets, any order), then ends it. */
function split(bytes: Buffer, cuts: number[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((l) => lines.push(l));
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    splitter.push(bytes.subarray(from, cut));
    from = cut;
  }
  splitter.push(bytes.subarray(from));
  splitter.end();
  return lines;
}

const piece = fc.constantFrom("a", "bc", "\n", "\r", "\r\n", "é", "😀", "\u2028", " ", "{}");

describe("LineSplitter", () => {
  it("gives the same lines however the bytes are cut, even inside a character", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(200)), (pieces, cuts) => {
        const text = pieces.join("");
        const bytes = Buffer.from(text, "utf8");
        const inside = cuts.map((c) => c % (bytes.length + 1));
        expect(split(bytes, inside)).toEqual(linesOf(text));
      }),
      { numRuns: 500 },
    );
  });

  it("joins a line that came in many chunks once, whole", () => {
    const line = "x".repeat(300_000);
    const bytes = Buffer.from(`${line}\nnext\n${line}`, "utf8");
    const cuts = Array.from({ length: 40 }, (_, i) => (i + 1) * 16_384);
    const lines = split(bytes, cuts);
    expect(lines.map((l) => l.length)).toEqual([300_000, 4, 300_000]);
  });

  it("reports a throwing callback and goes on with the next line", () => {
    const seen: string[] = [];
    const splitter = new LineSplitter((l) => {
      seen.push(l);
      if (l === "bad") throw new Error("boom");
    });
    splitter.push(Buffer.from("bad\ngood\n"));
    splitter.end();
    expect(seen).toEqual(["bad", "good"]);
  });
});
