import { describe, expect, it } from "vitest";
import { growthRow } from "../../bench/workflow-size.js";

const linear = (n: number) => ({ n, ms: 3 + 0.05 * n });

describe("the workflow-size growth row", () => {
  it("reads 1× for linear reading and passes", () => {
    const row = growthRow([1_000, 3_000, 10_000].map(linear));
    expect(row?.value).toBeCloseTo(1, 9);
    expect(row?.ok).toBe(true);
    expect(row?.name).toBe("time per stage added reading a workflow, 3,000 → 10,000 ÷ 1,000 → 3,000 stages");
  });

  it("does not pass when reading grows faster than the stages", () => {
    const row = growthRow([1_000, 3_000, 10_000].map((n) => ({ n, ms: 1e-5 * n * n })));
    expect(row?.value).toBeGreaterThan(1.5);
    expect(row?.ok).toBe(false);
    expect(row?.detail).not.toContain("too close together");
  });

  it("cannot judge, and does not pass, when either step shrank (a negative ratio is not met)", () => {
    const lastShrank = growthRow([
      { n: 50, ms: 3 },
      { n: 200, ms: 11 },
      { n: 400, ms: 10 },
    ]);
    expect(lastShrank?.value).toBeLessThan(0);
    expect(lastShrank?.ok).toBe(false);
    expect(lastShrank?.detail).toContain("the 200 → 400 step took no longer per stage added");
    const firstShrank = growthRow([
      { n: 50, ms: 12 },
      { n: 200, ms: 11 },
      { n: 400, ms: 21 },
    ]);
    expect(firstShrank?.ok).toBe(false);
    expect(firstShrank?.detail).toContain("the 50 → 200 step took no longer per stage added");
  });

  it("needs three sizes", () => {
    expect(growthRow([linear(10), linear(20)])).toBeNull();
  });
});
