import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../util/seeded-random.js";
import { DedupIndex, dedupFindings, isDuplicate, TITLE_SCAN_MAX } from "./dedup.js";
import { type Locatable, normalizedDistance, normalizeTitle } from "./fingerprint.js";
import { TitleTokens, TOKEN_CANDIDATES, titleTokens } from "./title-tokens.js";

/** Words of a made-up vocabulary: enough of them that titles differ as reviewers' do. */
function vocabulary(size: number, rnd: () => number): string[] {
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sta",
    "ve",
    "qui",
    "dor",
    "pel",
    "tan",
    "gro",
    "fy",
    "zu",
  ];
  const out = new Set<string>();
  while (out.size < size) {
    const n = 2 + Math.floor(rnd() * 3);
    out.add(Array.from({ length: n }, () => syllables[Math.floor(rnd() * syllables.length)]).join(""));
  }
  return [...out];
}

function titles(count: number, seed: number, words = 400): string[] {
  const rnd = seededRandom(seed);
  const vocab = vocabulary(words, rnd);
  return Array.from({ length: count }, () =>
    Array.from({ length: 4 + Math.floor(rnd() * 5) }, () => vocab[Math.floor(rnd() * vocab.length)]).join(
      " ",
    ),
  );
}

/** `title` with `edits` characters replaced, each by a letter no title uses. */
function restated(title: string, edits: number, rnd: () => number): string {
  let t = title;
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rnd() * t.length);
    t = `${t.slice(0, at)}x${t.slice(at + 1)}`;
  }
  return t;
}

interface Item extends Locatable {
  n: number;
}

const noLine = (title: string, n: number): Item => ({
  n,
  file: "a.ts",
  lineStart: null,
  lineEnd: null,
  title,
});

describe("titleTokens", () => {
  it("is a title's words, its pairs of adjacent words, its four-character runs and its ends", () => {
    const t = titleTokens("null check gap");
    expect(t).toEqual(
      new Set([
        "\u0001null",
        "\u0001check",
        "\u0001gap",
        "\u0002null check",
        "\u0002check gap",
        ...["null", "ull ", "ll c", "l ch", " che", "chec", "heck", "eck ", "ck g", "k ga", " gap"],
        "\u0003null che",
        "\u0004heck gap",
        "\u0003null check g",
        "\u0004ll check gap",
      ]),
    );
    expect(titleTokens("xss")).toEqual(new Set(["\u0001xss"]));
    expect(titleTokens("")).toEqual(new Set());
  });
});

describe("TitleTokens", () => {
  it("among at most TOKEN_CANDIDATES, finds the title a restatement was made from, every token common", () => {
    // Fifteen words: every token is shared by dozens of titles, and the restated one by most.
    const all = titles(3_000, 1, 15);
    const index = new TitleTokens();
    all.forEach((t, i) => {
      index.add(i, t);
    });
    const rnd = seededRandom(2);
    for (let q = 0; q < 200; q++) {
      const at = Math.floor(rnd() * all.length);
      const found = index.candidates(restated(all[at] as string, 1, rnd), all.length);
      expect(found.length).toBeLessThanOrEqual(TOKEN_CANDIDATES);
      expect(found).toContain(at);
    }
  });

  it("ranks by tokens shared, not by the order the postings are read in", () => {
    const index = new TitleTokens();
    // Sixty titles share "pqrs" with the query, sixty "tuvw"; the last one added shares both.
    for (let i = 0; i < 60; i++) index.add(i, `pqrs a${i}`);
    for (let i = 60; i < 120; i++) index.add(i, `b${i} tuvw`);
    index.add(120, "pqrs z tuvw");
    const found = index.candidates("pqrs tuvw", 121);
    expect(found).toHaveLength(TOKEN_CANDIDATES);
    expect(found).toContain(120);
  });

  it("finds nothing for a title that shares no token", () => {
    const index = new TitleTokens();
    titles(600, 3).forEach((t, i) => {
      index.add(i, t);
    });
    expect(index.candidates("zzzz yyyy", 600)).toEqual([]);
  });
});

describe(`a file with more than TITLE_SCAN_MAX (${TITLE_SCAN_MAX}) findings without lines`, () => {
  const FINDINGS = 4 * TITLE_SCAN_MAX;

  it("finds a restatement of any of them, as close as the one restated or closer", () => {
    const all = titles(FINDINGS, 4).map(noLine);
    const index = new DedupIndex<Item>();
    for (const it of all) index.add(it);
    const rnd = seededRandom(5);
    for (let q = 0; q < 300; q++) {
      const original = all[Math.floor(rnd() * all.length)] as Item;
      const query = noLine(restated(original.title, 1 + Math.floor(rnd() * 3), rnd), -1);
      const found = index.findBest(query);
      expect(found).toBeDefined();
      const d = (it: Item) => normalizedDistance(normalizeTitle(query.title), normalizeTitle(it.title));
      expect(d(found as Item)).toBeLessThanOrEqual(d(original));
    }
  });

  it("finds a restatement with a line among the file's findings without lines, and one without among those with lines", () => {
    const rnd = seededRandom(6);
    const ts = titles(FINDINGS, 7);
    const index = new DedupIndex<Item>();
    const items = ts.map((title, n) =>
      n % 2 === 0 ? noLine(title, n) : { ...noLine(title, n), lineStart: n, lineEnd: n },
    );
    for (const it of items) index.add(it);
    for (let q = 0; q < 200; q++) {
      const original = items[Math.floor(rnd() * items.length)] as Item;
      const title = restated(original.title, 1, rnd);
      // A line far from every finding's: only the findings without lines are near it.
      const query =
        original.lineStart === null
          ? { ...noLine(title, -1), lineStart: 10 * FINDINGS, lineEnd: 10 * FINDINGS }
          : noLine(title, -1);
      expect(index.findBest(query)?.n).toBe(original.n);
    }
  });

  it("property: whatever it finds is a duplicate by the rule, that `accept` allowed, and an exact title is always found", () => {
    const all = titles(FINDINGS, 8, 60).map(noLine);
    const index = new DedupIndex<Item>();
    for (const it of all) index.add(it);
    fc.assert(
      fc.property(
        fc.nat(all.length - 1),
        fc.nat(4),
        fc.nat(3),
        fc.integer({ min: 1, max: 1_000_000 }),
        (at, edits, skip, seed) => {
          const original = all[at] as Item;
          const query = noLine(restated(original.title, edits, seededRandom(seed)), -1);
          const accept = (it: Item) => it.n % 4 !== skip;
          const found = index.findBest(query, accept);
          if (found !== undefined) {
            expect(isDuplicate(query, found)).toBe(true);
            expect(accept(found)).toBe(true);
          }
          if (edits === 0 && accept(original)) expect(found?.title).toBe(original.title);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("merges each restatement in a batch of them with the finding it restates", () => {
    const rnd = seededRandom(9);
    const base = titles(FINDINGS, 10);
    const raws = base.map((title) => ({
      severity: "P2" as const,
      category: "correctness",
      title,
      body: "",
      file: "a.ts",
      lineStart: null,
      lineEnd: null,
      suggestedFix: null,
    }));
    const planted = Array.from({ length: 200 }, () => {
      const at = Math.floor(rnd() * base.length);
      return {
        at,
        raw: { ...(raws[at] as (typeof raws)[number]), title: restated(base[at] as string, 1, rnd) },
      };
    });
    const { groups } = dedupFindings([...raws, ...planted.map((p) => p.raw)]);
    const groupOf = new Map<number, number>();
    groups.forEach((g, gi) => {
      for (const i of g) groupOf.set(i, gi);
    });
    planted.forEach((p, k) => {
      expect(groupOf.get(FINDINGS + k)).toBe(groupOf.get(p.at));
    });
  });
});
