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

interface Bucket<T extends Locatable> {
  /** In insertion order: the index is the tie-breaker (earliest wins). */
  items: Prepared<T>[];
  /** Indexes of items with a line, sorted by lineStart. */
  byLine: number[];
  /** Indexes of items without a line: they are near any line. */
  noLine: number[];
  /** The longest lineEnd - lineStart in byLine, so a window search cannot miss a long range. */
  maxSpan: number;
  /** Exact normalized title → indexes, for the common "same title again" case. */
  byTitle: Map<string, number[]>;
}

function lowerBound(bucket: Bucket<Locatable>, line: number): number {
  let lo = 0;
  let hi = bucket.byLine.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = bucket.items[bucket.byLine[mid] as number]?.item.lineStart ?? 0;
    if (at < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Findings bucketed by file so a lookup compares only against findings of the same file; inside a
 * file, only against those whose lines are within the window (a sorted line index), so a file
 * holding thousands of findings costs a lookup O(log k + nearby), not O(k). An exact title match
 * is found by hash first. Items are indexed with their title and place at insertion; callers must
 * not change those later.
 */
export class DedupIndex<T extends Locatable> {
  private readonly buckets = new Map<string, Bucket<T>>();

  add(item: T): void {
    this.addPrepared(prepare(item));
  }

  addPrepared(p: Prepared<T>): void {
    const key = p.file ?? "\u0000";
    let b = this.buckets.get(key);
    if (!b) {
      b = { items: [], byLine: [], noLine: [], maxSpan: 0, byTitle: new Map() };
      this.buckets.set(key, b);
    }
    const at = b.items.length;
    b.items.push(p);
    const same = b.byTitle.get(p.title);
    if (same) same.push(at);
    else b.byTitle.set(p.title, [at]);
    const start = p.item.lineStart;
    if (start === null) {
      b.noLine.push(at);
      return;
    }
    b.maxSpan = Math.max(b.maxSpan, (p.item.lineEnd ?? start) - start);
    b.byLine.splice(lowerBound(b, start + 0.5), 0, at);
  }

  /** The closest match (smallest title distance, earliest inserted on ties) that `accept` allows. */
  findBest(candidate: Locatable, accept: (item: T) => boolean = () => true): T | undefined {
    return this.findBestPrepared(prepare(candidate), accept);
  }

  findBestPrepared(c: Prepared, accept: (item: T) => boolean = () => true): T | undefined {
    const b = this.buckets.get(c.file ?? "\u0000");
    if (!b) return undefined;
    // Distance 0 cannot be beaten: the earliest exact title that matches wins outright.
    for (const i of b.byTitle.get(c.title) ?? []) {
      const p = b.items[i];
      if (p && matchDistance(c, p) === 0 && accept(p.item)) return p.item;
    }
    let best = -1;
    let bestDistance = Number.POSITIVE_INFINITY;
    const consider = (i: number) => {
      const p = b.items[i];
      if (!p) return;
      const d = matchDistance(c, p);
      if (d !== null && (d < bestDistance || (d === bestDistance && i < best)) && accept(p.item)) {
        best = i;
        bestDistance = d;
      }
    };
    const start = c.item.lineStart;
    if (c.file === null || start === null) {
      // No place to narrow by: every finding of the file is a candidate.
      for (let i = 0; i < b.items.length; i++) consider(i);
    } else {
      for (const i of b.noLine) consider(i);
      const end = c.item.lineEnd ?? start;
      for (let k = lowerBound(b, start - LINE_WINDOW - b.maxSpan); k < b.byLine.length; k++) {
        const i = b.byLine[k] as number;
        if ((b.items[i]?.item.lineStart ?? 0) > end + LINE_WINDOW) break;
        consider(i);
      }
    }
    return best < 0 ? undefined : b.items[best]?.item;
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
