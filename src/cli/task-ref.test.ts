import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FixpointError } from "../errors.js";
import { parseWholeNumber } from "./task-ref.js";

function usageMessage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(FixpointError);
    expect((e as FixpointError).code).toBe("usage");
    return (e as Error).message;
  }
  throw new Error("expected a usage error");
}

describe("parseWholeNumber", () => {
  it("reads every whole number from its least value up, written in digits", () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(Number.MAX_SAFE_INTEGER), fc.boolean(), (min, k, pad) => {
        const n = Math.min(Number.MAX_SAFE_INTEGER, min + k);
        const text = pad ? ` ${n} ` : String(n);
        expect(parseWholeNumber("--n", text, min)).toBe(n);
      }),
    );
  });

  it("refuses anything else with the flag and the text given", () => {
    const notDigits = fc.string().filter((s) => !/^\s*\d+\s*$/.test(s));
    fc.assert(
      fc.property(notDigits, (text) => {
        expect(usageMessage(() => parseWholeNumber("--max-cycles", text, 1))).toBe(
          `--max-cycles takes a whole number ≥ 1, not \`${text}\``,
        );
      }),
    );
    for (const text of ["1.5", "0x10", "1e3", "-1", "", "  ", "9007199254740993"]) {
      expect(usageMessage(() => parseWholeNumber("--budget-tokens", text))).toBe(
        `--budget-tokens takes a whole number, not \`${text}\``,
      );
    }
  });

  it("refuses a number below the least value, and takes none when none is given", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (min) => {
        const below = String(min - 1);
        expect(usageMessage(() => parseWholeNumber("--lease-ms", below, min))).toBe(
          `--lease-ms takes a whole number ≥ ${min}, not \`${below}\``,
        );
      }),
    );
    expect(parseWholeNumber("--review", "0")).toBe(0);
    expect(parseWholeNumber("--review", undefined)).toBeUndefined();
  });
});
