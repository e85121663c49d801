import { describe, expect, it } from "vitest";
import { costFromUsage, priceFor } from "./pricing.js";

const usage = { input: 1_000_000, output: 100_000, cacheRead: 500_000, cacheWrite: 0 };

describe("costFromUsage", () => {
  it("prices input, output and cached tokens per million", () => {
    // gpt-5: $1.25 in, $10 out, $0.125 cached.
    expect(costFromUsage("gpt-5", usage)).toBeCloseTo(1.25 + 1 + 0.0625, 10);
  });

  it("prices dated snapshots and provider-prefixed names like their family", () => {
    expect(priceFor("gpt-5-2025-08-07")).toEqual(priceFor("gpt-5"));
    expect(priceFor("gpt-5-mini-2025-08-07")).toEqual(priceFor("gpt-5-mini"));
    expect(priceFor("openai/gpt-4o")).toEqual(priceFor("gpt-4o"));
  });

  it("lets the config add models and override defaults", () => {
    const extra = { "my-local": { inputPerM: 1, outputPerM: 2 }, "gpt-5": { inputPerM: 0, outputPerM: 0 } };
    expect(
      costFromUsage("my-local", { input: 2_000_000, output: 1_000_000, cacheRead: 0, cacheWrite: 0 }, extra),
    ).toBe(4);
    expect(costFromUsage("gpt-5", usage, extra)).toBe(0);
  });

  it("costs 0 for a model nobody priced", () => {
    expect(costFromUsage("mystery-model", usage)).toBe(0);
  });
});
