import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RawFinding } from "../domain/types.js";
import { DedupIndex, dedupFindings, isDuplicate } from "./dedup.js";
import { fingerprint, type Locatable, normalizedDistance, normalizeTitle } from "./fingerprint.js";
import { syntheticFindings } from "./synthetic.js";

function raw(over: Partial<RawFinding> = {}): RawFinding {
  return {
    severity: "P2",
    category: "correctness",
    title: "SQL injection in user search",
    body: "The query concatenates user input.",
    file: "src/api/users.ts",
    lineStart: 87,
    lineEnd: 92,
    suggestedFix: null,
    ...over,
  };
}

/** What the index must find, by a plain scan: the closest accepted duplicate, earliest on ties. */
function plainBest<T extends Locatable>(query: T, items: T[], accept: (it: T) => boolean): T | undefined {
  let best: T | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const it of items) {
    if (!isDuplicate(query, it) || !accept(it)) continue;
    const d = normalizedDistance(normalizeTitle(query.title), normalizeTitle(it.title));
    if (d < bestD) {
      best = it;
      bestD = d;
    }
  }
  return best;
}

describe("fingerprint", () => {
  it("is file + line bucket + normalized title", () => {
    expect(normalizeTitle("  Fix:  SQL-Injection!! ")).toBe("fix sqlinjection");
    expect(fingerprint(raw({ file: "./src/a.ts", lineStart: 87, title: "Bad  Thing." }))).toBe(
      "src/a.ts:8:bad thing",
    );
    expect(fingerprint(raw({ file: null, lineStart: null, title: "X" }))).toBe(":-:x");
  });
});

describe("isDuplicate", () => {
  it("matches slightly different titles of the same problem in the same place", () => {
    expect(isDuplicate(raw(), raw({ title: "SQL injection in the user search" }))).toBe(true);
    expect(isDuplicate(raw(), raw({ title: "sql injection in user-search!" }))).toBe(true);
  });

  it("keeps titles at distance ≥ 0.3 apart", () => {
    expect(isDuplicate(raw(), raw({ title: "Missing index on users table" }))).toBe(false);
    // "SQL injection in user search" vs "XSS injection in admin panel": far apart.
    expect(isDuplicate(raw(), raw({ title: "XSS injection in admin panel" }))).toBe(false);
  });

  it("uses a ±5 line window", () => {
    expect(isDuplicate(raw({ lineStart: 87, lineEnd: 92 }), raw({ lineStart: 97, lineEnd: 99 }))).toBe(true);
    expect(isDuplicate(raw({ lineStart: 87, lineEnd: 92 }), raw({ lineStart: 98, lineEnd: 99 }))).toBe(false);
    expect(isDuplicate(raw({ lineStart: 87, lineEnd: 87 }), raw({ lineStart: 81, lineEnd: 82 }))).toBe(true);
    expect(isDuplicate(raw({ lineStart: 87, lineEnd: 87 }), raw({ lineStart: 80, lineEnd: 81 }))).toBe(false);
  });

  it("needs the same file; two file-less findings need near-identical titles", () => {
    expect(isDuplicate(raw(), raw({ file: "src/api/admin.ts" }))).toBe(false);
    expect(isDuplicate(raw(), raw({ file: "./src/api/users.ts" }))).toBe(true);
    expect(isDuplicate(raw({ file: null }), raw({ file: "src/api/users.ts" }))).toBe(false);
    const a = raw({ file: null, title: "Tests are flaky on CI" });
    expect(isDuplicate(a, raw({ file: null, title: "tests are flaky on CI." }))).toBe(true);
    expect(isDuplicate(a, raw({ file: null, title: "Tests are slow on CI" }))).toBe(false);
  });
});

describe("dedupFindings", () => {
  it("collapses duplicates, keeping the higher severity and both bodies", () => {
    const r = dedupFindings([
      raw({ severity: "P2", body: "first" }),
      raw({ title: "Other problem entirely", lineStart: 10, lineEnd: 10 }),
      raw({ severity: "P0", title: "SQL injection in user-search", body: "second", lineStart: 90 }),
    ]);
    expect(r.findings).toHaveLength(2);
    expect(r.findings[0]).toMatchObject({ severity: "P0", body: "first\n\n---\n\nsecond" });
    expect(r.groups).toEqual([[0, 2], [1]]);
  });

  it("is deterministic on the benchmark input and finds its planted duplicates", () => {
    const batch = syntheticFindings(2000, 100, 7);
    expect(syntheticFindings(2000, 100, 7)).toEqual(batch);
    const r = dedupFindings(batch);
    expect(r.findings.length).toBeLessThan(batch.length * 0.8);
    expect(r.findings.length).toBeGreaterThan(batch.length * 0.6);
  });

  // Its speed (SPEC §14: 250 ms) is measured by `npm run bench` (bench/dedup.ts), not here.
  it("deduplicates 10,000 findings over 500 files, merging near duplicates within each file only", () => {
    const batch = syntheticFindings(10_000, 500, 1);
    const r = dedupFindings(batch);
    expect(r.findings.length).toBeLessThan(batch.length * 0.8);
    expect(r.findings.length).toBeGreaterThan(batch.length * 0.6);
    const files = new Set(batch.map((f) => f.file));
    expect(new Set(r.findings.map((f) => f.file))).toEqual(files);
  });
});

describe("DedupIndex against a plain scan", () => {
  type Item = Locatable & { n: number };
  const item = fc.record({
    file: fc.constantFrom<string | null>("a.ts", "b.ts", null),
    lineStart: fc.option(fc.integer({ min: 1, max: 80 }), { nil: null }),
    span: fc.integer({ min: 0, max: 30 }),
    title: fc.constantFrom(
      "null check missing",
      "null check mising",
      "race in cache",
      "race in cach",
      "leak",
    ),
  });
  const toItem = (
    r: { file: string | null; lineStart: number | null; span: number; title: string },
    n: number,
  ): Item => ({
    n,
    file: r.file,
    title: r.title,
    lineStart: r.lineStart,
    lineEnd: r.lineStart === null ? null : r.lineStart + r.span,
  });

  it("property: finds the same finding as comparing with every finding (closest, earliest on ties)", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 60 }), item, fc.integer({ min: 0, max: 3 }), (rs, q, skip) => {
        const items = rs.map(toItem);
        const index = new DedupIndex<Item>();
        for (const it of items) index.add(it);
        const accept = (it: Item) => it.n % 4 !== skip;
        const query = toItem(q, -1);
        expect(index.findBest(query, accept)?.n).toBe(plainBest(query, items, accept)?.n);
      }),
      { numRuns: 400 },
    );
  });

  it("property: adds between lookups (a bucket indexed, then added to) find what a plain scan finds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(item, fc.boolean()), { maxLength: 60 }),
        fc.integer({ min: 0, max: 3 }),
        (steps, skip) => {
          const index = new DedupIndex<Item>();
          const added: Item[] = [];
          const accept = (it: Item) => it.n % 4 !== skip;
          steps.forEach(([r, lookup], n) => {
            const it = toItem(r, n);
            if (lookup) {
              expect(index.findBest(it, accept)?.n).toBe(plainBest(it, added, accept)?.n);
            }
            index.add(it);
            added.push(it);
          });
        },
      ),
      { numRuns: 400 },
    );
  });
});
