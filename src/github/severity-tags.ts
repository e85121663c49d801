import type { Severity } from "../domain/types.js";

/**
 * Reviewers tag severity in many dialects: `**Critical**`, `[critical]`, `🔴 Critical`,
 * CodeRabbit's `_⚠️ Potential issue_ | _🟠 Major_`, `Nit: …`, `severity: high`, `[P1]`.
 * A bare word in prose ("a minor point") is not a tag: only these framings count.
 */
const WORDS = "critical|blocker|major|high|medium|minor|low|nitpick|nit|trivial|p[0-3]";
const EMOJI = "(?:🔴|🟠|🟡|🟢|🔵|⚪|⚠️|❗|‼️)";
const LEAD = `(?:${EMOJI}\\s*)?`;

/**
 * Spaces at a line's start are its own (`[^\S\n\r\u2028\u2029]`, not `\s`, which read a run of
 * blank lines from each of them), and an optional mark between spaces is `\s*(?::\s*)?`, not
 * `\s*:?\s*` (which split a run of spaces in every way): text anyone can write stays linear.
 */
const INDENT = "[^\\S\\n\\r\\u2028\\u2029]*";

export const TAG_PATTERNS: readonly RegExp[] = [
  new RegExp(`\\*\\*\\s*${LEAD}(${WORDS})\\s*(?::\\s*)?\\*\\*`, "iu"),
  new RegExp(`(?:^|[\\s|(])_\\s*${LEAD}(${WORDS})\\s*_(?=$|[\\s|).:,])`, "imu"),
  new RegExp(`\\[\\s*${LEAD}(${WORDS})\\s*\\]`, "iu"),
  new RegExp(`${EMOJI}\\s*(${WORDS})\\b`, "iu"),
  new RegExp(`^${INDENT}(?:severity|priority)\\s*[:=]\\s*(?:\\*+\\s*)?(${WORDS})\\b`, "imu"),
  new RegExp(`^${INDENT}(${WORDS})\\s*:`, "imu"),
];
/** The same patterns, global: every tag of a line, for stripSeverityTags. */
const EVERY_TAG: readonly RegExp[] = TAG_PATTERNS.map((p) => new RegExp(p.source, `${p.flags}g`));

const SEVERITY_OF: Record<string, Severity> = {
  critical: "P0",
  blocker: "P0",
  p0: "P0",
  major: "P1",
  high: "P1",
  p1: "P1",
  minor: "P2",
  medium: "P2",
  p2: "P2",
  nitpick: "P3",
  nit: "P3",
  trivial: "P3",
  low: "P3",
  p3: "P3",
};

/** The severity the reviewer tagged, taken from the earliest tag in the text; null if none. */
export function parseSeverityTag(text: string): Severity | null {
  let best: { index: number; severity: Severity } | null = null;
  for (const pattern of TAG_PATTERNS) {
    const m = pattern.exec(text);
    const word = m?.[1]?.toLowerCase();
    const severity = word === undefined ? undefined : SEVERITY_OF[word];
    if (m && severity && (best === null || m.index < best.index)) best = { index: m.index, severity };
  }
  return best?.severity ?? null;
}

/** CodeRabbit-style kind markers → a category; "pr-comment" otherwise. */
export function parseCategoryTag(text: string): string {
  if (/potential issue|\bbug\b/i.test(text.slice(0, 200))) return "correctness";
  if (/refactor suggestion/i.test(text.slice(0, 200))) return "maintainability";
  if (/\bsecurity\b/i.test(text.slice(0, 200))) return "security";
  if (/nitpick|\bnit\b/i.test(text.slice(0, 200))) return "style";
  return "pr-comment";
}

/** Remove every severity tag from a line (used to find the comment's real first line). */
export function stripSeverityTags(line: string): string {
  let out = line;
  for (const pattern of EVERY_TAG) out = out.replace(pattern, " ");
  return out;
}
