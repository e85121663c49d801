import { describe, expect, it } from "vitest";
import { costFromUsage, hasPrice, priceFor } from "./pricing.js";

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

describe("priceFor: point releases", () => {
  it("prices a dotted version like its family when the table has no entry of its own", () => {
    expect(priceFor("gpt-5.5")).toEqual(priceFor("gpt-5"));
    expect(priceFor("gpt-5.5-2026-01-15")).toEqual(priceFor("gpt-5"));
    expect(priceFor("openai/gpt-5.2")).toEqual(priceFor("gpt-5"));
    expect(costFromUsage("gpt-5.5", usage)).toBeGreaterThan(0);
  });

  it("keeps the model line's suffix when it drops the point (gpt-5.1-codex → gpt-5-codex)", () => {
    const extra = { "gpt-5-codex": { inputPerM: 7, outputPerM: 70 } };
    expect(priceFor("gpt-5.1-codex", extra)).toEqual({ inputPerM: 7, outputPerM: 70 });
    expect(priceFor("gpt-5.1-codex-max", extra)).toEqual({ inputPerM: 7, outputPerM: 70 });
  });

  it("prefers an entry for the point release itself over the family", () => {
    const extra = { "gpt-5.5": { inputPerM: 3, outputPerM: 30 } };
    expect(priceFor("gpt-5.5", extra)).toEqual({ inputPerM: 3, outputPerM: 30 });
    expect(priceFor("gpt-5.5-2026-01-15", extra)).toEqual({ inputPerM: 3, outputPerM: 30 });
    expect(priceFor("gpt-5.5-codex", extra)).toEqual({ inputPerM: 3, outputPerM: 30 });
    // Another point release of the same line is not that entry.
    expect(priceFor("gpt-5.4", extra)).toEqual(priceFor("gpt-5"));
  });

  it("does not mistake a longer version number for a point release of a shorter one", () => {
    expect(priceFor("gpt-50")).toBeUndefined();
    expect(priceFor("o3x")).toBeUndefined();
    expect(hasPrice("mystery-9.1")).toBe(false);
    expect(hasPrice(undefined)).toBe(false);
    expect(hasPrice("gpt-5.5")).toBe(true);
  });
});
