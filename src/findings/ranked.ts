import { type Finding, SEVERITIES, type Severity } from "../domain/types.js";
import { numericId } from "./registry-core.js";
import { severityRank } from "./severity.js";

/**
 * Findings in priority order (see `priorityOrder`) with each one's severity rank and numeric id
 * at the same index, read once by `rankFindings`. A bounded prompt section passes over
 * everything it leaves out several times (which severities to drop, counts, the "left out"
 * line); at 50,000 findings each pass that reads the findings themselves costs a cache miss or
 * two per finding (the object, its id string), while these arrays are read in order.
 */
export interface Ranked {
  findings: Finding[];
  /** `severityRank`: 0 for P0 … 3 for P3, -1 for a severity fixpoint does not know. */
  sevs: number[];
  /** `numericId`. */
  ids: number[];
}

/**
 * The order prompts choose findings in when they cannot show them all (issue 10): blocking
 * findings first, most severe first; then the ones `raisedBy` (a `review:<stage>` source) raised;
 * then the rest by severity. Ties go to the older id, so the choice is the same on every run.
 */
export function priorityOrder(
  findings: readonly Finding[],
  blocking: Severity,
  raisedBy?: string,
): Finding[] {
  return rankFindings(findings, blocking, raisedBy).findings;
}

const emptyRanked = (): Ranked => ({ findings: [], sevs: [], ids: [] });

function push(r: Ranked, from: Ranked, i: number): void {
  r.findings.push(from.findings[i] as Finding);
  r.sevs.push(from.sevs[i] as number);
  r.ids.push(from.ids[i] as number);
}

/**
 * `priorityOrder` with ranks and ids. The same as one stable sort by (tier, severity, id), done
 * as a stable split into the three tiers and a sort of a tier only when it is out of order: the
 * registry hands findings out most severe first, then by id, so each tier is in order already
 * and the whole is O(n) with no key object per finding. O(n log n) at worst.
 */
export function rankFindings(findings: readonly Finding[], blocking: Severity, raisedBy?: string): Ranked {
  const threshold = severityRank(blocking);
  const tiers: Ranked[] = [emptyRanked(), emptyRanked(), emptyRanked()];
  for (const f of findings) {
    const sev = severityRank(f.severity);
    // isBlocking, with the threshold's rank computed once.
    const tier = sev <= threshold ? 0 : raisedBy !== undefined && raised(f, raisedBy) ? 1 : 2;
    const t = tiers[tier] as Ranked;
    t.findings.push(f);
    t.sevs.push(sev);
    t.ids.push(numericId(f.id));
  }
  const [first, second, third] = tiers.map(sortedTier) as [Ranked, Ranked, Ranked];
  return {
    findings: first.findings.concat(second.findings, third.findings),
    sevs: first.sevs.concat(second.sevs, third.sevs),
    ids: first.ids.concat(second.ids, third.ids),
  };
}

/** `t` sorted by severity, then id (stable); `t` itself when it is in that order already. */
function sortedTier(t: Ranked): Ranked {
  if (inSeverityIdOrder(t)) return t;
  const out = emptyRanked();
  for (const i of severityIdOrder(t)) push(out, t, i);
  return out;
}

function raised(f: Finding, by: string): boolean {
  for (const s of f.sources) if (s.source === by) return true;
  return false;
}

function inSeverityIdOrder(t: Ranked): boolean {
  for (let i = 1; i < t.findings.length; i++) {
    const sevStep = (t.sevs[i] as number) - (t.sevs[i - 1] as number);
    if (sevStep < 0 || (sevStep === 0 && (t.ids[i] as number) < (t.ids[i - 1] as number))) return false;
  }
  return true;
}

/** Indexes of `t` stably sorted by severity, then id. */
function severityIdOrder(t: Ranked): number[] {
  const order = t.findings.map((_, i) => i);
  order.sort(
    (a, b) => (t.sevs[a] as number) - (t.sevs[b] as number) || (t.ids[a] as number) - (t.ids[b] as number),
  );
  return order;
}

/** The findings `keep` picks (by severity rank, or by the finding), in order, ranks and ids kept. */
export function filterRanked(r: Ranked, keep: (sev: number, f: Finding) => boolean): Ranked {
  const out = emptyRanked();
  for (let i = 0; i < r.findings.length; i++) {
    if (keep(r.sevs[i] as number, r.findings[i] as Finding)) push(out, r, i);
  }
  return out;
}

/** `findings.slice(start, end)` with ranks and ids. */
export function sliceRanked(r: Ranked, start: number, end?: number): Ranked {
  return {
    findings: r.findings.slice(start, end),
    sevs: r.sevs.slice(start, end),
    ids: r.ids.slice(start, end),
  };
}

/** How many block approval: `isBlocking` against `threshold`, from the ranks. */
export function countBlocking(r: Ranked, threshold: Severity): number {
  const limit = severityRank(threshold);
  let n = 0;
  for (const sev of r.sevs) if (sev <= limit) n++;
  return n;
}

interface Tally {
  sev: Severity;
  count: number;
  /** The smallest ids seen, ascending, at most `idsPerSeverity`. */
  oldest: number[];
}

/**
 * Ids by severity for a "left out" line (the findings from `from` on), the oldest few of each so
 * the line stays small. One pass, no sort of the whole list: it runs on everything a prompt
 * leaves out. Most severe first; severities fixpoint does not know come first, in the order
 * they first appear.
 */
export function countsBySeverity(r: Ranked, from = 0, idsPerSeverity = 8): string {
  const known: (Tally | undefined)[] = [];
  const unknown = new Map<Severity, Tally>();
  for (let i = from; i < r.findings.length; i++) {
    const rank = r.sevs[i] as number;
    let tally = rank >= 0 ? known[rank] : unknown.get((r.findings[i] as Finding).severity);
    if (!tally) {
      // A known rank names its severity; only an unknown one needs the finding's own spelling.
      tally = {
        sev: rank >= 0 ? (SEVERITIES[rank] as Severity) : (r.findings[i] as Finding).severity,
        count: 0,
        oldest: [],
      };
      if (rank >= 0) known[rank] = tally;
      else unknown.set(tally.sev, tally);
    }
    tally.count++;
    keepOldest(tally.oldest, r.ids[i] as number, idsPerSeverity);
  }
  const tallies = [...unknown.values(), ...known.filter((t): t is Tally => t !== undefined)];
  return tallies
    .map(({ sev, count, oldest }) => {
      const shown = oldest.map((n) => `F-${n}`).join(", ");
      const more = count > idsPerSeverity ? `, +${count - idsPerSeverity} more` : "";
      return `${count} ${sev} finding${count === 1 ? "" : "s"} (${shown}${more})`;
    })
    .join("; ");
}

/** `n` into `oldest` (ascending) if it is among the `max` smallest seen. */
function keepOldest(oldest: number[], n: number, max: number): void {
  if (oldest.length >= max && n >= (oldest[oldest.length - 1] ?? 0)) return;
  let at = oldest.length;
  while (at > 0 && (oldest[at - 1] ?? 0) > n) at--;
  oldest.splice(at, 0, n);
  if (oldest.length > max) oldest.pop();
}
