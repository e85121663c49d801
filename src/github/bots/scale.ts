import type { Severity } from "../../domain/types.js";

/**
 * Every bot's own scale mapped onto P0–P3 (the table in docs/github.md is this table). Keys are
 * lower case; a bot's word not listed here is not a severity.
 */
export const BOT_SCALES = {
  coderabbit: {
    critical: "P0",
    major: "P1",
    minor: "P2",
    trivial: "P3",
    info: "P3",
    "potential issue": "P1",
    "refactor suggestion": "P2",
    nitpick: "P3",
  },
  copilot: { "inline comment": "P2", nitpick: "P3", "low confidence": "P3" },
  codex: { p0: "P0", p1: "P1", p2: "P2", p3: "P3" },
  gemini: { critical: "P0", high: "P1", medium: "P2", low: "P3" },
  bugbot: { critical: "P0", high: "P1", medium: "P2", low: "P3" },
  sourcery: {
    "issue (security)": "P1",
    "issue (bug_risk)": "P1",
    issue: "P2",
    "suggestion (security)": "P2",
    "suggestion (bug_risk)": "P2",
    suggestion: "P3",
    nitpick: "P3",
    question: "P3",
  },
  qodo: {
    "action required": "P1",
    "importance 9-10": "P1",
    "remediation recommended": "P2",
    "review recommended": "P2",
    "importance 7-8": "P2",
    "importance 1-6": "P3",
    advisory: "P3",
    informational: "P3",
  },
  greptile: { p0: "P0", p1: "P1", p2: "P2", p3: "P3", logic: "P1", syntax: "P1", style: "P3" },
} as const satisfies Record<string, Record<string, Severity>>;

export type ScaledBot = keyof typeof BOT_SCALES;

/** The P-level of `word` on `bot`'s scale; null when the word is not on it. */
export function scaled(bot: ScaledBot, word: string | undefined): Severity | null {
  if (word === undefined) return null;
  const scale: Record<string, Severity> = BOT_SCALES[bot];
  return scale[word.trim().toLowerCase()] ?? null;
}
