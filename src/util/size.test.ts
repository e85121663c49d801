import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseConfigText } from "../config/parse.js";
import { DiagnosticsError, formatDiagnostic } from "../errors.js";
import { formatSize, parseSize } from "./size.js";

const parse = (text: string) => parseConfigText(text, "/repo/fixpoint.kdl", { home: "/home/u" });

describe("parseSize", () => {
  test("reads bytes, binary and decimal units", () => {
    expect(parseSize("64KiB")).toBe(65536);
    expect(parseSize("64 kib")).toBe(65536);
    expect(parseSize("1.5MiB")).toBe(1572864);
    expect(parseSize("500KB")).toBe(500_000);
    expect(parseSize("800B")).toBe(800);
    expect(parseSize("4096")).toBe(4096);
    expect(parseSize(4096)).toBe(4096);
  });

  test("refuses what is not a size", () => {
    for (const bad of ["", "KiB", "64 parsecs", "-1KiB", "0", "1e3", "0.1B", 0, 1.5, -3]) {
      expect(parseSize(bad)).toBeUndefined();
    }
  });

  test("property: formatSize output parses back to the same number of bytes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), (n) => {
        expect(parseSize(formatSize(n).replace(" bytes", ""))).toBe(n);
      }),
    );
  });

  test("property: arbitrary text never throws and yields a whole number ≥ 1 or nothing", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const v = parseSize(s);
        expect(v === undefined || (Number.isSafeInteger(v) && v >= 1)).toBe(true);
      }),
    );
  });
});

describe("prompt-budget in fixpoint.kdl", () => {
  test("defaults and per-agent budgets are read as bytes", () => {
    const layer = parse(`
agent "reviewer" backend="claude-code" prompt-budget="16KiB"
defaults { prompt-budget "96KiB"; }
`);
    expect(layer.defaults.promptBudget).toBe(96 * 1024);
    expect(layer.agents.find((a) => a.name === "reviewer")?.promptBudget).toBe(16 * 1024);
  });

  test("a budget that is not a size is reported at its place", () => {
    let messages: string[] = [];
    try {
      parse(`defaults prompt-budget="lots"\n`);
    } catch (e) {
      if (!(e instanceof DiagnosticsError)) throw e;
      messages = e.diagnostics.map(formatDiagnostic);
    }
    expect(messages.join("\n")).toMatch(/`prompt-budget` must be a size in bytes, such as 65536, "64KiB"/);
  });
});
