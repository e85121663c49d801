import type { Finding, Severity } from "../domain/types.js";
import { numericId } from "./registry-core.js";
import { isBlocking, severityRank } from "./severity.js";

/**
 * The order prompts choose findings in when they cannot show them all (issue 10): blocking
 * findings first, most severe first; then the ones `raisedBy` (a `review:<stage>` source) raised;
 * then the rest by severity. Ties go to the older id, so the choice is the same on every run.
 * O(n log n): each finding's key is computed once.
 */
export function priorityOrder(
  findings: readonly Finding[],
  blocking: Severity,
  raisedBy?: string,
): Finding[] {
  const keyed = findings.map((f) => {
    const sev = severityRank(f.severity);
    const tier = isBlocking(f.severity, blocking) ? 0 : raisedBy !== undefined && raised(f, raisedBy) ? 1 : 2;
    return { f, tier, sev, id: numericId(f.id) };
  });
  keyed.sort((a, b) => a.tier - b.tier || a.sev - b.sev || a.id - b.id);
  return keyed.map((k) => k.f);
}

function raised(f: Finding, by: string): boolean {
  for (const s of f.sources) if (s.source === by) return true;
  return false;
}

/** UTF-8 size: budgets are in bytes because that is what a provider bills and caches. */
export function byteSize(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** `F-1–F-40, F-42, F-45–F-50`: consecutive ids collapse, so a long history stays short. */
function idRanges(ids: readonly string[]): string[] {
  const numbers = ids.map(numericId).filter((n) => n !== Number.MAX_SAFE_INTEGER);
  numbers.sort((a, b) => a - b);
  const out: string[] = [];
  let start = numbers[0];
  let prev = start;
  for (let i = 1; i <= numbers.length; i++) {
    const n = numbers[i];
    if (n !== undefined && prev !== undefined && n === prev + 1) {
      prev = n;
      continue;
    }
    if (start !== undefined && prev !== undefined)
      out.push(start === prev ? `F-${start}` : `F-${start}–F-${prev}`);
    start = n;
    prev = n;
  }
  const odd = ids.filter((id) => numericId(id) === Number.MAX_SAFE_INTEGER);
  return [...out, ...odd];
}

/** Resolved findings are named, never shown: a count and their ids, capped at `maxRanges` ranges. */
export function resolvedLine(ids: readonly string[], taskId: string, maxRanges = 24): string {
  if (ids.length === 0) return "";
  const ranges = idRanges(ids);
  const shown = ranges.slice(0, maxRanges).join(", ");
  const more = ranges.length > maxRanges ? `, +${ranges.length - maxRanges} more ranges` : "";
  return (
    `Already resolved (not shown): ${ids.length} finding${ids.length === 1 ? "" : "s"} (${shown}${more}). ` +
    `\`fixpoint findings ${taskId}\` shows them.`
  );
}

/**
 * Ids by severity for a "left out" line, the oldest few of each so the line stays small.
 * One pass, no sort of the whole list: it runs on everything a prompt leaves out.
 */
export function countsBySeverity(findings: readonly Finding[], idsPerSeverity = 8): string {
  const bySev = new Map<Severity, { count: number; oldest: number[] }>();
  for (const f of findings) {
    let g = bySev.get(f.severity);
    if (!g) {
      g = { count: 0, oldest: [] };
      bySev.set(f.severity, g);
    }
    g.count++;
    const n = numericId(f.id);
    const oldest = g.oldest;
    if (oldest.length < idsPerSeverity || n < (oldest[oldest.length - 1] ?? 0)) {
      let at = oldest.length;
      while (at > 0 && (oldest[at - 1] ?? 0) > n) at--;
      oldest.splice(at, 0, n);
      if (oldest.length > idsPerSeverity) oldest.pop();
    }
  }
  return [...bySev.entries()]
    .sort(([a], [b]) => severityRank(a) - severityRank(b))
    .map(([sev, g]) => {
      const shown = g.oldest.map((n) => `F-${n}`).join(", ");
      const more = g.count > idsPerSeverity ? `, +${g.count - idsPerSeverity} more` : "";
      return `${g.count} ${sev} finding${g.count === 1 ? "" : "s"} (${shown}${more})`;
    })
    .join("; ");
}
