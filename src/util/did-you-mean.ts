import { distance } from "fastest-levenshtein";

/**
 * The closest candidate to a misspelt word, or undefined when nothing is close enough to be a
 * plausible typo. "Close enough" scales with the word: 40% of its length, at least 1 edit, so
 * `agnet` suggests `agent` but `x` suggests nothing from a list of long names.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.round(word.length * 0.4));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** ` (did you mean `x`?)`, or "" when there is no suggestion; for appending to a message. */
export function didYouMeanSuffix(word: string, candidates: Iterable<string>): string {
  const suggestion = didYouMean(word, candidates);
  return suggestion === undefined ? "" : ` (did you mean \`${suggestion}\`?)`;
}
