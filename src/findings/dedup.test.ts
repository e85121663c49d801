import fc from "fast-check";
import { distance } from "fastest-levenshtein";
import { describe, expect, it } from "vitest";
import type { RawFinding } from "../domain/types.js";
import { DedupIndex, dedupFindings, isDuplicate, SCAN_BELOW, titlePieces } from "./dedup.js";
import {
  countsDistance,
  fingerprint,
  type Locatable,
  normalizedDistance,
  normalizeFile,
  normalizeTitle,
  titleCounts,
} from "./fingerprint.js";
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

type Item = Locatable & { n: number };
interface ItemShape {
  file: string | null;
  lineStart: number | null;
  span: number;
  title: string;
}
const toItem = (r: ItemShape, n: number): Item => ({
  n,
  file: r.file,
  title: r.title,
  lineStart: r.lineStart,
  lineEnd: r.lineStart === null ? null : r.lineStart + r.span,
});

/** A title and one a few random edits away from it, over letters that repeat (some outside ASCII). */
const nearTitles = fc
  .tuple(
    fc.string({ unit: fc.constantFrom("a", "b", "e", "s", " ", "1", "é", "ж", "語", "😀"), maxLength: 80 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom("", "a", "z", "é", "語", "  ")), { maxLength: 12 }),
  )
  .map(([a, edits]) => {
    let b = a;
    for (const [at, text] of edits) {
      const i = b.length === 0 ? 0 : at % b.length;
      b = `${b.slice(0, i)}${text}${b.slice(i + (at % 3 === 0 ? 0 : 1))}`;
    }
    return [a, b] as const;
  });

describe("countsDistance", () => {
  it("property: is at most the Levenshtein distance, stopped early or not", () => {
    fc.assert(
      fc.property(nearTitles, fc.nat(30), ([a, b], stopAt) => {
        const d = distance(a, b);
        expect(countsDistance(titleCounts(a), titleCounts(b))).toBeLessThanOrEqual(d);
        const early = countsDistance(titleCounts(a), titleCounts(b), stopAt);
        expect(early).toBeLessThanOrEqual(d);
        expect(early >= stopAt || early === countsDistance(titleCounts(a), titleCounts(b))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("tells apart titles made of different letters, and counts past 255 of one letter as 255", () => {
    expect(countsDistance(titleCounts("missing null check"), titleCounts("unbounded loop"))).toBe(12);
    expect(countsDistance(titleCounts("a".repeat(300)), titleCounts("a".repeat(255)))).toBe(0);
  });
});

describe("isDuplicate", () => {
  it("property: is the rule itself (same file, lines within ±5, titles under 0.3, or 0.1 without a file)", () => {
    const place = fc.record({
      file: fc.constantFrom(null, "src/a.ts", "./src/a.ts"),
      lineStart: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
      span: fc.nat(8),
    });
    fc.assert(
      fc.property(nearTitles, place, place, ([ta, tb], pa, pb) => {
        const [a, b] = [toItem({ ...pa, title: ta }, 0), toItem({ ...pb, title: tb }, 1)];
        const file = normalizeFile(a.file);
        const near =
          a.lineStart === null ||
          b.lineStart === null ||
          (a.lineStart <= (b.lineEnd as number) + 5 && b.lineStart <= (a.lineEnd as number) + 5);
        const limit = file === null ? 0.1 : 0.3;
        const rule =
          file === normalizeFile(b.file) &&
          (file === null || near) &&
          normalizedDistance(normalizeTitle(ta), normalizeTitle(tb)) < limit;
        expect(isDuplicate(a, b)).toBe(rule);
      }),
      { numRuns: 1000 },
    );
  });

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

/**
 * Adds the steps' items to an index holding `start` in order, and at each step marked as a lookup
 * first checks that the index finds what a plain scan of everything added so far finds.
 */
function lookupsBetweenAdds(steps: readonly [ItemShape, boolean][], skip: number, start: Item[] = []): void {
  const index = new DedupIndex<Item>();
  const added = [...start];
  for (const it of added) index.add(it);
  const accept = (it: Item) => it.n % 4 !== skip;
  steps.forEach(([r, lookup], n) => {
    const it = toItem(r, n);
    if (lookup) expect(index.findBest(it, accept)?.n).toBe(plainBest(it, added, accept)?.n);
    index.add(it);
    added.push(it);
  });
}

describe("DedupIndex against a plain scan", () => {
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

  it("property: a title said more than SCAN_BELOW times in one file finds what a plain scan finds", () => {
    const repeated = fc.record({
      file: fc.constantFrom<string | null>("a.ts", "a.ts", "a.ts", null),
      lineStart: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null, freq: 8 }),
      span: fc.integer({ min: 0, max: 8 }),
      title: fc.constantFrom("missing return type", "missing return types", "leak"),
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(repeated, fc.boolean()), { minLength: SCAN_BELOW * 3, maxLength: 400 }),
        fc.integer({ min: 0, max: 3 }),
        (steps, skip) => lookupsBetweenAdds(steps, skip),
      ),
      { numRuns: 60 },
    );
  });

  it("property: adds between lookups (a bucket indexed, then added to) find what a plain scan finds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(item, fc.boolean()), { maxLength: 60 }),
        fc.integer({ min: 0, max: 3 }),
        (steps, skip) => lookupsBetweenAdds(steps, skip),
      ),
      { numRuns: 400 },
    );
  });
});

describe("titles without a file and wide line ranges against a plain scan", () => {
  /** A title a few edits from one of three bases: most pairs are near, some just past the limit. */
  const title = fc
    .tuple(
      fc.integer({ min: 0, max: 2 }),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.constantFrom("insert", "delete", "replace"),
          fc.constantFrom("a", "q", " ", "z"),
        ),
        {
          maxLength: 5,
        },
      ),
    )
    .map(([b, edits]) => {
      let t = ["unchecked error in the retry loop of the pool", "leak", "stale cache after invalidation"][
        b
      ] as string;
      for (const [at, op, ch] of edits) {
        const i = t.length === 0 ? 0 : at % (t.length + (op === "insert" ? 1 : 0));
        t =
          op === "insert"
            ? t.slice(0, i) + ch + t.slice(i)
            : t.slice(0, i) + (op === "replace" ? ch : "") + t.slice(i + 1);
      }
      return t;
    });
  const item = fc.record({
    file: fc.constantFrom<string | null>(null, null, "a.ts"),
    lineStart: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
    span: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 600 })),
    title,
  });

  /** Titles without a file far from any other, enough that lookups use the pieces, not a scan. */
  const filler = (): Item[] =>
    Array.from({ length: SCAN_BELOW + 1 }, (_, i) => ({
      n: -1 - i,
      file: null,
      lineStart: null,
      lineEnd: null,
      title: "filler ".repeat(10 + i),
    }));

  it("a title cut into pieces: ceil(length / 9) + 1 pieces of at most 9 characters, in order", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (t) => {
        const pieces = titlePieces(t);
        expect(pieces.map((p) => p.text).join("")).toBe(t);
        expect(pieces).toHaveLength(t.length === 0 ? 0 : Math.ceil(t.length / 9) + 1);
        for (const p of pieces) {
          expect(p.text.length).toBeLessThanOrEqual(9);
          expect(t.slice(p.at, p.at + p.text.length)).toBe(p.text);
        }
      }),
    );
  });

  it("property: lookups between adds find what comparing with every finding finds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(item, fc.boolean()), { maxLength: 80 }),
        fc.integer({ min: 0, max: 3 }),
        (steps, skip) => lookupsBetweenAdds(steps, skip, filler()),
      ),
      { numRuns: 500 },
    );
  });

  it("finds a title without a file the most edits away that still match, wherever they fall", () => {
    // 45 characters: at most 4 edits (4 / 49 < 0.1), 5 are too many (5 / 50).
    const base = "unchecked error in the retry loop of the pool";
    const index = new DedupIndex<Locatable>();
    for (const f of filler()) index.add(f);
    const it0 = { file: null, lineStart: null, lineEnd: null, title: base };
    index.add(it0);
    const find = (title: string) => index.findBest({ file: null, lineStart: null, lineEnd: null, title });
    expect(find(`zzzz${base}`)).toBe(it0);
    expect(find(`${base}zzzz`)).toBe(it0);
    expect(find(base.slice(4))).toBe(it0);
    expect(find(`zz${base.slice(0, 20)}zz${base.slice(20)}`)).toBe(it0);
    expect(find(`${base.slice(0, 10)}zzzz${base.slice(10)}`)).toBe(it0);
    expect(find(`zzzzz${base}`)).toBeUndefined();
  });

  it("merges a title without a file restated with a typo, and keeps a different one apart", () => {
    const r = dedupFindings([
      raw({
        file: null,
        lineStart: null,
        lineEnd: null,
        title: "The pull request has no tests for the parser",
      }),
      raw({ file: null, lineStart: null, lineEnd: null, title: "Other problem entirely" }),
      raw({
        file: null,
        lineStart: null,
        lineEnd: null,
        title: "The pull request has no test for the parser",
      }),
    ]);
    expect(r.groups).toEqual([[0, 2], [1]]);
  });
});
