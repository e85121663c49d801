import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IsoTimeBytes } from "./iso-time-bytes.js";

const MOST = 8.64e15;

describe("IsoTimeBytes", () => {
  it("writes what toISOString says, for any run of times, one day kept between them", () => {
    const near = fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 });
    const times = fc.array(
      fc.oneof(
        fc.integer({ min: -MOST, max: MOST }),
        near,
        fc.constantFrom(0, -1, 253_402_300_799_999, 253_402_300_800_000),
      ),
      {
        minLength: 1,
        maxLength: 40,
      },
    );
    fc.assert(
      fc.property(times, (ms) => {
        const writer = new IsoTimeBytes();
        const out = Buffer.alloc(40);
        for (const t of ms) {
          const n = writer.write(out, 3, t);
          expect(out.toString("latin1", 3, 3 + n)).toBe(new Date(t).toISOString());
        }
      }),
      { numRuns: 500 },
    );
  });

  it("writes each millisecond of a day after the day is kept", () => {
    const writer = new IsoTimeBytes();
    const out = Buffer.alloc(30);
    const day = Date.UTC(2026, 11, 3);
    for (const t of [
      day,
      day + 1,
      day + 999,
      day + 59_999,
      day + 3_599_999,
      day + 86_399_999,
      day + 86_400_000,
    ]) {
      expect(out.toString("latin1", 0, writer.write(out, 0, t))).toBe(new Date(t).toISOString());
    }
  });
});
