import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SortedRuns } from "./sorted-runs.js";

/** Values 0, 1, 2, … with the given keys, added in batches (a batch of one goes through `add`). */
function build(keys: readonly number[], batches: readonly number[]): SortedRuns {
  const runs = new SortedRuns((v) => keys[v] as number);
  let next = 0;
  for (const size of batches) {
    const batch = Array.from({ length: Math.min(size, keys.length - next) }, (_, i) => next + i);
    next += batch.length;
    if (batch.length === 1) runs.add(batch[0] as number);
    else runs.addAll(batch);
  }
  runs.addAll(Array.from({ length: keys.length - next }, (_, i) => next + i));
  return runs;
}

/** What one sorted array gives: by key, equal keys in the order added (by value, here). */
function plain(keys: readonly number[]): number[] {
  return keys.map((_, v) => v).sort((x, y) => (keys[x] as number) - (keys[y] as number) || x - y);
}

// Left to its default size, fast-check keeps arrays to about 10 values: never more than one run.
const keysOf = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 10 }),
  fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 600, maxLength: 3000, size: "max" }),
);
const batchesOf = fc.array(fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 700 })), {
  maxLength: 40,
  size: "max",
});

describe("SortedRuns", () => {
  it("holds what a sorted array holds, equal keys in the order added, in any batches", () => {
    fc.assert(
      fc.property(keysOf, batchesOf, (keys, batches) => {
        const runs = build(keys, batches);
        expect(runs.values()).toEqual(plain(keys));
        expect(runs.size).toBe(keys.length);
      }),
      { numRuns: 60 },
    );
  });

  it("visits from the first key at or above `from`, in order, until told to stop", () => {
    fc.assert(
      fc.property(
        keysOf,
        batchesOf,
        fc.integer({ min: -2, max: 63 }),
        fc.nat(50),
        (keys, batches, from, take) => {
          const runs = build(keys, batches);
          const seen: number[] = [];
          runs.visitFrom(from, (v) => {
            if (seen.length === take) return false;
            seen.push(v);
            return true;
          });
          expect(seen).toEqual(
            plain(keys)
              .filter((v) => (keys[v] as number) >= from)
              .slice(0, take),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("adds 20,000 values one by one into runs, not one array", () => {
    const keys = Array.from({ length: 20_000 }, (_, v) => (v * 7919) % 3000);
    const runs = build(keys, Array(keys.length).fill(1));
    expect(runs.values()).toEqual(plain(keys));
    let visited = 0;
    runs.visitFrom(1500, (v) => {
      visited++;
      return (keys[v] as number) <= 1502;
    });
    // The values keyed 1500, 1501 and 1502, and the first one above them.
    expect(visited).toBe(keys.filter((k) => k >= 1500 && k <= 1502).length + 1);
  });
});
