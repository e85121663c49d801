import { SEVERITIES, type Severity } from "../domain/types.js";

/** Words people (and reviewers) use for severities, mapped to the P-scale. */
const ALIASES: Readonly<Record<string, Severity>> = {
  critical: "P0",
  blocker: "P0",
  high: "P1",
  major: "P1",
  medium: "P2",
  minor: "P2",
  low: "P3",
  nit: "P3",
  trivial: "P3",
};

/** `P0`…`P3` (any case) or an alias such as `major`; undefined when unknown. */
export function parseSeverity(text: string): Severity | undefined {
  const word = text.trim();
  const upper = word.toUpperCase();
  const exact = SEVERITIES.find((s) => s === upper);
  return exact ?? ALIASES[word.toLowerCase()];
}

/** Every accepted spelling, for "did you mean" suggestions and messages. */
export const SEVERITY_WORDS: readonly string[] = [...SEVERITIES, ...Object.keys(ALIASES)];
