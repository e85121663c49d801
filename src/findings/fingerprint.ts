import { distance } from "fastest-levenshtein";

/** What identity and deduplication look at. */
export interface Locatable {
  file: string | null;
  lineStart: number | null;
  lineEnd: number | null;
  title: string;
}

/** Lowercase, punctuation stripped, whitespace collapsed: "Fix: SQL-injection!" → "fix sqlinjection". */
export function normalizeTitle(title: string): string {
  const lower = title.toLowerCase();
  // The ASCII path avoids the Unicode-property regex: dedup normalizes 10⁴ titles per batch.
  const stripped = /[^\s!-~]/.test(lower)
    ? lower.replace(/[^\p{L}\p{N}\s]/gu, "")
    : lower.replace(/[^a-z0-9\s]/g, "");
  return stripped.replace(/\s+/g, " ").trim();
}

/** Paths as reviewers write them vary ("./src/a.ts", "src\\a.ts"); compare one spelling. */
export function normalizeFile(file: string | null): string | null {
  if (file === null) return null;
  if (!file.includes("\\") && !file.startsWith("./") && file.trim() === file)
    return file === "" ? null : file;
  const f = file
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "");
  return f === "" ? null : f;
}

/** Lines are bucketed by tens so a finding that moves a few lines keeps a similar fingerprint. */
export function lineBucket(lineStart: number | null): string {
  return lineStart === null ? "-" : String(Math.floor(lineStart / 10));
}

/** SPEC §8: file + line bucket + normalized title. */
export function fingerprint(raw: Locatable): string {
  return `${normalizeFile(raw.file) ?? ""}:${lineBucket(raw.lineStart)}:${normalizeTitle(raw.title)}`;
}

/** Levenshtein distance divided by the longer length: 0 = identical, 1 = nothing in common. */
export function normalizedDistance(a: string, b: string): number {
  const max = Math.max(a.length, b.length);
  if (max === 0) return 0;
  return distance(a, b) / max;
}

/** Slots of titleCounts: a–z, 0–9 and the space each have one, every other character shares 11. */
const COUNT_SLOTS = 48;
const SHARED_SLOTS = 11;
const SLOT_OF_ASCII = Uint8Array.from({ length: 128 }, (_, c) =>
  c >= 97 && c <= 122 ? c - 97 : c >= 48 && c <= 57 ? c - 22 : c === 32 ? 36 : 37 + (c % SHARED_SLOTS),
);

/**
 * How often each character occurs in a title, by slot (counts stop at 255). Two titles' counts
 * give a lower bound on their Levenshtein distance (countsDistance) in 48 steps, where the
 * distance itself takes the product of their lengths: in a file whose findings have no lines,
 * every one of them is a candidate, and most are told apart by this alone.
 */
export function titleCounts(title: string): Uint8Array {
  const counts = new Uint8Array(COUNT_SLOTS);
  for (let i = 0; i < title.length; i++) {
    const c = title.charCodeAt(i);
    const slot = c < 128 ? (SLOT_OF_ASCII[c] as number) : 37 + (c % SHARED_SLOTS);
    if ((counts[slot] as number) < 255) counts[slot] = (counts[slot] as number) + 1;
  }
  return counts;
}

/**
 * At most the Levenshtein distance of the titles counted: an edit adds at most one character and
 * removes at most one, so it brings the surplus of either title's characters over the other's down
 * by at most one each (slots shared by several characters, and counts stopped at 255, only make
 * the surpluses smaller). Counting stops once either surplus reaches `stopAt`: what is returned
 * then is still at most the distance, and at least `stopAt`.
 */
export function countsDistance(a: Uint8Array, b: Uint8Array, stopAt = Number.POSITIVE_INFINITY): number {
  let surplusA = 0;
  let surplusB = 0;
  for (let i = 0; i < COUNT_SLOTS; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d > 0) {
      surplusA += d;
      if (surplusA >= stopAt) return surplusA;
    } else {
      surplusB -= d;
      if (surplusB >= stopAt) return surplusB;
    }
  }
  return Math.max(surplusA, surplusB);
}
