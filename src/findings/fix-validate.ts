import { redactSecrets } from "../util/redact.js";
import { normalizedDistance, normalizeTitle } from "./fingerprint.js";

/** SPEC §8 rule 3: the only reasons a fixer may give for `blocked`. */
export const BLOCKED_REASONS = [
  "needs a human decision",
  "external dependency",
  "contradicts the task",
  "file no longer exists",
] as const;
export type BlockedReason = (typeof BLOCKED_REASONS)[number];

/** Key words per reason, matched on normalized text ("needs_human_decision" → "needs human decision"). */
const REASON_PATTERNS: ReadonlyArray<[BlockedReason, RegExp]> = [
  ["needs a human decision", /\bhuman\b|\bdecision\b|\bproduct owner\b|\bmaintainer\b/],
  ["external dependency", /\bexternal\b|\bdependency\b|\bupstream\b|\bthird party\b/],
  ["contradicts the task", /\bcontradict|\bconflicts with the task\b|\bagainst the task\b/],
  [
    "file no longer exists",
    /\bno longer exists?\b|\bdeleted\b|\bdoes not exist\b|\bfile (?:is )?(?:gone|missing|removed)\b/,
  ],
];

function normalize(text: string): string {
  return normalizeTitle(text.replace(/[_-]+/g, " "));
}

/** The accepted reason the fixer meant, or null when it gave none of them. */
export function matchBlockedReason(reason: string | undefined): BlockedReason | null {
  const n = normalize(reason ?? "");
  if (n === "") return null;
  for (const [canonical, pattern] of REASON_PATTERNS) if (pattern.test(n)) return canonical;
  return null;
}

/**
 * Excuses that say nothing (seed 003): they would let a fixer defer anything. A justification is
 * weak when it is (nearly) one of these, or contains one and is short or has no concrete detail.
 */
export const WEAK_PHRASES = [
  "out of scope",
  "takes too long",
  "too long",
  "too complex",
  "too much work",
  "not important",
  "not needed",
  "not necessary",
  "unnecessary",
  "later",
  "will do later",
  "will fix later",
  "low priority",
  "acknowledged",
  "noted",
  "not worth it",
  "future work",
  "follow up",
  "wont fix",
  "no time",
  "tbd",
  "todo",
  "na",
  "none",
  "skip",
] as const;

/** Short phrases such as "later" are matched as whole words only. */
const WEAK_PATTERNS = WEAK_PHRASES.map((p) => new RegExp(`\\b${p.replace(/ /g, "\\s")}\\b`));
const SHORT = 60;
const MIN_WORDS = 3;

/** Something a person could check: a path, an identifier, a number, a link, an issue. */
function hasConcreteDetail(raw: string): boolean {
  // `\w\(\)`, not `\w+\(\)`: the same test, without reading every word to its end from each letter.
  return /[/\\`#]|\w\.\w{1,5}\b|https?:|\d|\bF-\d+\b|\w\(\)|[a-z][A-Z]|\w_\w/.test(raw);
}

export type Judgement = { weak: false } | { weak: true; why: string };

export function judgeJustification(raw: string): Judgement {
  const n = normalize(raw.replace(/'/g, ""));
  if (n === "") return { weak: true, why: "empty" };
  for (const phrase of WEAK_PHRASES) {
    // The distance is at least the difference in length: a text 30% longer or shorter is not near,
    // and a long justification is not compared character by character with every phrase.
    if (Math.min(n.length, phrase.length) <= 0.7 * Math.max(n.length, phrase.length)) continue;
    if (normalizedDistance(n, phrase) < 0.3) return { weak: true, why: `only says "${phrase}"` };
  }
  const hit = WEAK_PHRASES.find((_, i) => WEAK_PATTERNS[i]?.test(n));
  if (hit && (raw.trim().length < SHORT || !hasConcreteDetail(raw))) {
    return { weak: true, why: `"${hit}" without a concrete reason` };
  }
  if (n.split(" ").length < MIN_WORDS && !hasConcreteDetail(raw))
    return { weak: true, why: "too short to check" };
  return { weak: false };
}

/** The rejection text the fixer sees next cycle. */
export function rejectionMessage(justification: string, why: string): string {
  const quoted =
    justification.trim() === "" ? "(empty)" : `"${redactSecrets(justification.trim()).slice(0, 200)}"`;
  return `weak justification: ${quoted} (${why}). Fix it, or defer with a concrete reason: what stops you and what would unblock it.`;
}
