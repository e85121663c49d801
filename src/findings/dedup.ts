import type { RawFinding } from "../domain/types.js";
import { type Locatable, normalizedDistance, normalizeFile, normalizeTitle } from "./fingerprint.js";
import { maxSeverity } from "./severity.js";

/** SPEC §8 rule 2: titles closer than this (normalized Levenshtein) are the same problem. */
export const TITLE_DISTANCE = 0.3;
/** Line ranges within this many lines of each other count as the same place. */
export const LINE_WINDOW = 5;
/** Two findings without any file must have near-identical titles to merge. */
const FILELESS_DISTANCE = 0.1;
/** Merged bodies stop growing here, so a finding raised every cycle stays a bounded size. */
export const MAX_MERGED_BODY = 4000;

/** Line ranges overlap once one of them is widened by the window; a missing range matches any. */
function linesNear(a: Locatable, b: Locatable): boolean {
  if (a.lineStart === null || b.lineStart === null) return true;
  const aEnd = a.lineEnd ?? a.lineStart;
  const bEnd = b.lineEnd ?? b.lineStart;
  return a.lineStart <= bEnd + LINE_WINDOW && b.lineStart <= aEnd + LINE_WINDOW;
}

/** Same file, lines within ±5, titles at normalized distance < 0.3. */
export function isDuplicate(a: Locatable, b: Locatable): boolean {
  return matchDistance(prepare(a), prepare(b)) !== null;
}

export interface Prepared<T extends Locatable = Locatable> {
  item: T;
  file: string | null;
  title: string;
}

/** Normalizes an item's file and title once, for repeated lookups. */
export function prepare<T extends Locatable>(item: T): Prepared<T> {
  return { item, file: normalizeFile(item.file), title: normalizeTitle(item.title) };
}

/** The title distance when the two match, else null. Cheap checks first: this runs 10⁵ times. */
function matchDistance(a: Prepared, b: Prepared): number | null {
  if (a.file !== b.file) return null;
  if (a.file !== null && !linesNear(a.item, b.item)) return null;
  const limit = a.file === null ? FILELESS_DISTANCE : TITLE_DISTANCE;
  if (a.title === b.title) return 0;
  const longer = Math.max(a.title.length, b.title.length);
  // The distance is at least the length difference; skip Levenshtein when that already fails.
  if (Math.abs(a.title.length - b.title.length) / longer >= limit) return null;
  const d = normalizedDistance(a.title, b.title);
  return d < limit ? d : null;
}

/**
 * Findings bucketed by file so a lookup compares only against findings of the same file.
 * Items are indexed with their title and place at insertion; callers must not change those later.
 */
export class DedupIndex<T extends Locatable> {
  private readonly buckets = new Map<string, Prepared<T>[]>();

  add(item: T): void {
    this.addPrepared(prepare(item));
  }

  addPrepared(p: Prepared<T>): void {
    const key = p.file ?? "\u0000";
    const bucket = this.buckets.get(key);
    if (bucket) bucket.push(p);
    else this.buckets.set(key, [p]);
  }

  /** The closest match (smallest title distance, earliest inserted on ties) that `accept` allows. */
  findBest(candidate: Locatable, accept: (item: T) => boolean = () => true): T | undefined {
    return this.findBestPrepared(prepare(candidate), accept);
  }

  findBestPrepared(c: Prepared, accept: (item: T) => boolean = () => true): T | undefined {
    const bucket = this.buckets.get(c.file ?? "\u0000");
    if (!bucket) return undefined;
    let best: T | undefined;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (const p of bucket) {
      const d = matchDistance(c, p);
      if (d !== null && d < bestDistance && accept(p.item)) {
        best = p.item;
        bestDistance = d;
        if (d === 0) break;
      }
    }
    return best;
  }
}

/** Bodies merged when they say something different; bounded by MAX_MERGED_BODY. */
export function mergeBodies(existing: string, incoming: string): string {
  const a = existing.trim();
  const b = incoming.trim();
  if (b === "" || a.includes(b)) return existing;
  if (a === "" || b.includes(a)) return incoming.length <= MAX_MERGED_BODY ? incoming : existing;
  const merged = `${existing}\n\n---\n\n${incoming}`;
  return merged.length <= MAX_MERGED_BODY ? merged : existing;
}

export interface DedupResult {
  /** One finding per distinct problem, in order of first appearance. */
  findings: RawFinding[];
  /** groups[i] lists the input indexes merged into findings[i]. */
  groups: number[][];
}

/** Collapses a batch of raw findings (SPEC §8 rule 2): higher severity kept, bodies merged. */
export function dedupFindings(raws: readonly RawFinding[]): DedupResult {
  const index = new DedupIndex<{ at: number } & Locatable>();
  const findings: RawFinding[] = [];
  const groups: number[][] = [];
  raws.forEach((raw, i) => {
    const p = prepare(raw);
    const hit = index.findBestPrepared(p);
    const target = hit ? findings[hit.at] : undefined;
    if (hit && target) {
      target.severity = maxSeverity(target.severity, raw.severity);
      target.body = mergeBodies(target.body, raw.body);
      target.suggestedFix ??= raw.suggestedFix;
      groups[hit.at]?.push(i);
      return;
    }
    const at = findings.length;
    findings.push({ ...raw });
    groups.push([i]);
    index.addPrepared({
      ...p,
      item: { at, file: raw.file, lineStart: raw.lineStart, lineEnd: raw.lineEnd, title: raw.title },
    });
  });
  return { findings, groups };
}
