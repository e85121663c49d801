import { describe, expect, it } from "vitest";
import { perStage } from "../../bench/cli-chain.js";

/** When each stage ended, given each stage's duration (the first stage ends at 0). */
const endsOf = (durations: number[]): number[] => {
  const ends = [0];
  for (const d of durations) ends.push((ends.at(-1) as number) + d);
  return ends;
};

describe("the CLI chain benchmark's time per stage", () => {
  it("is the mean of a short chain, the first stage excluded", () => {
    expect(perStage([100, 104, 110, 112])).toBe(4);
    expect(() => perStage([5])).toThrow();
  });

  it("of a long chain is the median block's: a burst on the machine moves a few blocks, not it", () => {
    const steady = Array.from({ length: 999 }, () => 4);
    expect(perStage(endsOf(steady))).toBe(4);
    // 60 stages of 40 ms somewhere in the middle: the mean says 6.2 ms, the typical stage 4.
    const burst = steady.map((d, i) => (i >= 400 && i < 460 ? 40 : d));
    expect(perStage(endsOf(burst))).toBe(4);
    // A chain that is slow throughout is slow.
    expect(perStage(endsOf(steady.map((d) => d * 2)))).toBe(8);
  });
});
