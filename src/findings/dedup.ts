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
  /** The normalized file every item here has (null: no file). */
  file: string | null;
  /** Indexed, in insertion order: the index is the tie-breaker (earliest wins). */
  items: Prepared<T>[];
  /** Added after `items` and not indexed yet, in insertion order (see DedupIndex). */
  pending: T[];
  /** Indexes of items with a line, sorted by lineStart, then by index. */
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
 * Gives `p` the next index and files it by title, and when it has no line as near every line;
 * returns the index. An item with a line is the caller's to place in `byLine`.
 */
function enter<T extends Locatable>(b: Bucket<T>, p: Prepared<T>): number {
  const at = b.items.length;
  b.items.push(p);
  const same = b.byTitle.get(p.title);
  if (same) same.push(at);
  else b.byTitle.set(p.title, [at]);
  const start = p.item.lineStart;
  if (start === null) b.noLine.push(at);
  else b.maxSpan = Math.max(b.maxSpan, (p.item.lineEnd ?? start) - start);
  return at;
}

/** Indexes one more item: the newest, it goes after every item with the same line start. */
function indexItem<T extends Locatable>(b: Bucket<T>, p: Prepared<T>): void {
  const at = enter(b, p);
  const start = p.item.lineStart;
  if (start !== null) b.byLine.splice(lowerBound(b, start + 0.5), 0, at);
}

/**
 * Indexes the bucket's pending items: what `indexItem` does one by one, but their line entries
 * are sorted once and merged in, so indexing k items costs O(k log k), not O(k²) splices.
 */
function flush<T extends Locatable>(b: Bucket<T>): void {
  if (b.pending.length === 0) return;
  const lined: number[] = [];
  for (const item of b.pending) {
    const at = enter(b, { item, file: b.file, title: normalizeTitle(item.title) });
    if (item.lineStart !== null) lined.push(at);
  }
  b.pending = [];
  const line = (i: number) => b.items[i]?.item.lineStart ?? 0;
  // Stable: equal line starts stay in index order, as inserting one at a time leaves them.
  lined.sort((x, y) => line(x) - line(y));
  b.byLine = mergeByLine(b.byLine, lined, line);
}

/** Two index lists sorted by (line, index) merged into one; every index in `added` is larger. */
function mergeByLine(old: number[], added: number[], line: (i: number) => number): number[] {
  if (old.length === 0) return added;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length && j < added.length) {
    const a = old[i] as number;
    const b = added[j] as number;
    // On equal lines the older index (from `old`) goes first.
    if (line(a) <= line(b)) {
      out.push(a);
      i++;
    } else {
      out.push(b);
      j++;
    }
  }
  for (; i < old.length; i++) out.push(old[i] as number);
  for (; j < added.length; j++) out.push(added[j] as number);
  return out;
}

/**
 * Findings bucketed by file so a lookup compares only against findings of the same file; inside a
 * file, only against those whose lines are within the window (a sorted line index), so a file
 * holding thousands of findings costs a lookup O(log k + nearby), not O(k). An exact title match
 * is found by hash first.
 *
 * `add` only files an item under its file; the bucket is indexed (titles normalized, lines
 * sorted) when a lookup first reaches it. A registry loads every finding of a task but a cycle's
 * new findings touch a few files, so most buckets are never indexed. Callers must not change an
 * item's title or place after adding it: when it is indexed is not theirs to know.
 */
export class DedupIndex<T extends Locatable> {
  /** By normalized file; findings without a file have their own bucket. */
  private readonly buckets = new Map<string, Bucket<T>>();
  private fileless: Bucket<T> | undefined;

  add(item: T): void {
    this.bucket(normalizeFile(item.file), true).pending.push(item);
  }

  addPrepared(p: Prepared<T>): void {
    const b = this.bucket(p.file, true);
    // Keeps insertion order: whatever `add` left pending is indexed first.
    flush(b);
    indexItem(b, p);
  }

  private bucket(file: string | null, create: true): Bucket<T>;
  private bucket(file: string | null, create: false): Bucket<T> | undefined;
  private bucket(file: string | null, create: boolean): Bucket<T> | undefined {
    let b = file === null ? this.fileless : this.buckets.get(file);
    if (b || !create) return b;
    b = { file, items: [], pending: [], byLine: [], noLine: [], maxSpan: 0, byTitle: new Map() };
    if (file === null) this.fileless = b;
    else this.buckets.set(file, b);
    return b;
  }

  /** The closest match (smallest title distance, earliest inserted on ties) that `accept` allows. */
  findBest(candidate: Locatable, accept: (item: T) => boolean = () => true): T | undefined {
    return this.findBestPrepared(prepare(candidate), accept);
  }

  findBestPrepared(c: Prepared, accept: (item: T) => boolean = () => true): T | undefined {
    const b = this.bucket(c.file, false);
    if (!b) return undefined;
    flush(b);
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
