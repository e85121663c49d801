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
