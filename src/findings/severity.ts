import { SEVERITIES, type Severity } from "../domain/types.js";

/**
 * Words reviewers use for severities, mapped to the P-scale (SPEC §7). "blocker" is not in the
 * spec's list but reviewers write it often enough, and it can only mean the top.
 */
const ALIASES: Readonly<Record<string, Severity>> = {
  critical: "P0",
  blocker: "P0",
  high: "P1",
  major: "P1",
  medium: "P2",
  minor: "P2",
  moderate: "P2",
  low: "P3",
  nit: "P3",
  nitpick: "P3",
  trivial: "P3",
};

/** `P0`…`P3` in any case, `0`…`3`, or an alias such as `major`; null when unknown. */
export function parseSeverity(s: unknown): Severity | null {
  if (typeof s === "number" && Number.isInteger(s)) return SEVERITIES[s] ?? null;
  if (typeof s !== "string") return null;
  const word = s.trim();
  const upper = word.toUpperCase();
  const exact = SEVERITIES.find((sev) => sev === upper || sev.slice(1) === upper);
  return exact ?? ALIASES[word.toLowerCase()] ?? null;
}

/** 0 for P0 (most severe) … 3 for P3. */
export function severityRank(sev: Severity): number {
  return SEVERITIES.indexOf(sev);
}

/** A finding at or above the threshold blocks approval (P0 is above P1). */
export function isBlocking(sev: Severity, threshold: Severity): boolean {
  return severityRank(sev) <= severityRank(threshold);
}

/** Sort comparator: most severe first. */
export function compareSeverity(a: Severity, b: Severity): number {
  return severityRank(a) - severityRank(b);
}

/** The more severe of two. */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return compareSeverity(a, b) <= 0 ? a : b;
}
