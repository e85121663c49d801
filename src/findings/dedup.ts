import type { RawFinding } from "../domain/types.js";
import { SortedRuns } from "../util/sorted-runs.js";
import {
  countsDistance,
  type Locatable,
  normalizedDistance,
  normalizeFile,
  normalizeTitle,
  titleCounts,
} from "./fingerprint.js";
import { maxSeverity } from "./severity.js";
import { TitleTokens } from "./title-tokens.js";

/** SPEC §8 rule 2: titles closer than this (normalized Levenshtein) are the same problem. */
export const TITLE_DISTANCE = 0.3;
/** Line ranges within this many lines of each other count as the same place. */
export const LINE_WINDOW = 5;
/** Two findings without any file must have near-identical titles to merge. */
const FILELESS_DISTANCE = 0.1;
/** Below this many findings without a file, a lookup compares with each: cheaper than its pieces. */
export const SCAN_BELOW = 64;
/**
 * A lookup by title alone in a file (a finding without lines, or the findings without lines of
 * the file of one with lines) compares with each candidate up to this many; past it, with those
 * sharing the most of its rarer tokens (title-tokens.ts), so such a file costs a lookup a bounded
 * time instead of one growing with the file.
 */
export const TITLE_SCAN_MAX = 512;
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
  /** The title's titleCounts, made when it is first compared. */
  counts: Uint8Array | null;
}

/** Normalizes an item's file and title once, for repeated lookups. */
export function prepare<T extends Locatable>(item: T): Prepared<T> {
  return prepared(item, normalizeFile(item.file), normalizeTitle(item.title));
}

function prepared<T extends Locatable>(item: T, file: string | null, title: string): Prepared<T> {
  return { item, file, title, counts: null };
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
  a.counts ??= titleCounts(a.title);
  b.counts ??= titleCounts(b.title);
  // So is the surplus of one title's characters over the other's, found in 48 steps or fewer.
  if (countsDistance(a.counts, b.counts, limit * longer) / longer >= limit) return null;
  const d = normalizedDistance(a.title, b.title);
  return d < limit ? d : null;
}

/**
 * Indexes of a bucket's items with a line, sorted by lineStart, then by index; one per span class
 * (see spanClass), so a wide range in a file does not widen the search for every narrow one.
 */
interface LineIndex {
  byLine: SortedRuns;
  /** The longest lineEnd - lineStart here, so a window search cannot miss a long range. */
  maxSpan: number;
}

interface Bucket<T extends Locatable> {
  /** The normalized file every item here has (null: no file). */
  file: string | null;
  /** Indexed, in insertion order: the index is the tie-breaker (earliest wins). */
  items: Prepared<T>[];
  /** Added after `items` and not indexed yet, in insertion order (see DedupIndex). */
  pending: T[];
  /** Items with a line, by span class. */
  lines: Map<number, LineIndex>;
  /** Indexes of items without a line: they are near any line. */
  noLine: number[];
  /** Exact normalized title → indexes, for the common "same title again" case. */
  byTitle: Map<string, number[]>;
  /** Only without a file: its items by pieces of their titles. */
  pieces: PieceIndex | null;
  /** Every item by its title's tokens; made when a lookup without a line first needs it. */
  allTokens: TitleTokens | null;
  /** The items of `noLine` by their titles' tokens; made when a lookup with a line first needs it. */
  noLineTokens: TitleTokens | null;
}

/** The titles of a bucket without a file by their pieces (see titlePieces). */
interface PieceIndex {
  /** pieceKey of a title's length, a piece's number and text → indexes. */
  byPiece: Map<number, number[]>;
  /** The lengths of the titles in `byPiece`. */
  titleLengths: Set<number>;
  /**
   * Per item, stamped: the last piece and lookup that found it, and its hits in that lookup, so a
   * lookup neither clears nor allocates anything per item. Stamps only grow, so arrays grown at a
   * lookup's start need none of the old ones.
   */
  piece: Float64Array;
  lookup: Float64Array;
  hits: Uint8Array;
  lastPiece: number;
  lastLookup: number;
}

function pieceIndex(): PieceIndex {
  return {
    byPiece: new Map(),
    titleLengths: new Set(),
    piece: new Float64Array(0),
    lookup: new Float64Array(0),
    hits: new Uint8Array(0),
    lastPiece: 0,
    lastLookup: 0,
  };
}

/** 0 for a one-line range, else the bit length of the span: spans within a class differ < 2×. */
function spanClass(span: number): number {
  return span <= 0 ? 0 : 32 - Math.clz32(span);
}

/**
 * A title without a file matches one whose distance is under FILELESS_DISTANCE (0.1) of the longer
 * length, so a match is at most D = ceil(L/9) - 1 edits from a title of length L (a longer match
 * is under L/0.9 long, and its edits under a tenth of that). Cut into D + 2 pieces, a title keeps
 * two pieces whole in any title that close, as each edit touches one piece, and each of them sits
 * there within D characters of where it sits here. So a lookup looks up, for each length a match
 * can have, each piece's place ± D in its own title, and compares only with the titles found there
 * twice: not with every finding that has no file, nor with every title that shares a word.
 */
export function titlePieces(title: string): { at: number; text: string }[] {
  return piecesOf(title.length).map(({ at, size }) => ({ at, text: title.slice(at, at + size) }));
}

/** Where titlePieces cuts a title of this length. */
function piecesOf(length: number): { at: number; size: number }[] {
  const k = length === 0 ? 0 : Math.ceil(length / 9) + 1;
  const out: { at: number; size: number }[] = [];
  for (let i = 0; i < k; i++) {
    const at = Math.floor((i * length) / k);
    out.push({ at, size: Math.floor(((i + 1) * length) / k) - at });
  }
  return out;
}

/**
 * A title's length, a piece's number and the piece, `size` characters of `title` from `from`,
 * hashed to a small integer: a lookup makes hundreds of keys (each length a match can have, each
 * piece, each place ± D), and strings made for them, each hashed anew, cost most of its time. Two
 * pieces with one key only add a candidate, which the rule then refuses: none is missed.
 */
function pieceKey(titleLength: number, piece: number, title: string, from: number, size: number): number {
  let h = Math.imul(titleLength + 1, 0x9e3779b1) ^ Math.imul(piece + 1, 0x85ebca6b);
  for (let k = from; k < from + size; k++) h = Math.imul(h ^ title.charCodeAt(k), 0x01000193);
  // 30 bits: a small integer to V8, whose maps hash it without allocating.
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

function lineIndex<T extends Locatable>(b: Bucket<T>, span: number): LineIndex {
  const c = spanClass(span);
  let l = b.lines.get(c);
  if (!l) {
    l = { byLine: new SortedRuns((i) => b.items[i]?.item.lineStart ?? 0), maxSpan: 0 };
    b.lines.set(c, l);
  }
  l.maxSpan = Math.max(l.maxSpan, span);
  return l;
}

/**
 * Gives `p` the next index and files it by title (and by its title's pieces without a file), and
 * when it has no line as near every line; returns the index. An item with a line is the caller's
 * to place in its line index.
 */
function enter<T extends Locatable>(b: Bucket<T>, p: Prepared<T>): number {
  const at = b.items.length;
  b.items.push(p);
  const same = b.byTitle.get(p.title);
  if (same) same.push(at);
  else b.byTitle.set(p.title, [at]);
  const pieces = b.pieces;
  if (pieces !== null) {
    piecesOf(p.title.length).forEach(({ at: from, size }, i) => {
      const key = pieceKey(p.title.length, i, p.title, from, size);
      const holders = pieces.byPiece.get(key);
      if (holders) holders.push(at);
      else pieces.byPiece.set(key, [at]);
    });
    pieces.titleLengths.add(p.title.length);
  }
  b.allTokens?.add(at, p.title);
  if (p.item.lineStart === null) {
    b.noLine.push(at);
    b.noLineTokens?.add(at, p.title);
  }
  return at;
}

function spanOf(item: Locatable): number {
  const start = item.lineStart ?? 0;
  return (item.lineEnd ?? start) - start;
}

/** The bucket's items at `indexes` by their titles' tokens; `enter` keeps it up once made. */
function tokenIndex<T extends Locatable>(b: Bucket<T>, indexes: Iterable<number>): TitleTokens {
  const t = new TitleTokens();
  for (const i of indexes) t.add(i, b.items[i]?.title ?? "");
  return t;
}

/** Indexes one more item: the newest, it goes after every item with the same line start. */
function indexItem<T extends Locatable>(b: Bucket<T>, p: Prepared<T>): void {
  const at = enter(b, p);
  const start = p.item.lineStart;
  // Without a file, lines do not count (matchDistance).
  if (start === null || b.file === null) return;
  lineIndex(b, spanOf(p.item)).byLine.add(at);
}

/**
 * Indexes the bucket's pending items: what `indexItem` does one by one, but their line entries
 * go in together, so a loaded registry's are sorted once and merged in (SortedRuns.addAll).
 */
function flush<T extends Locatable>(b: Bucket<T>): void {
  if (b.pending.length === 0) return;
  const lined = new Map<LineIndex, number[]>();
  for (const item of b.pending) {
    const at = enter(b, prepared(item, b.file, normalizeTitle(item.title)));
    if (item.lineStart === null || b.file === null) continue;
    const l = lineIndex(b, spanOf(item));
    const added = lined.get(l);
    if (added) added.push(at);
    else lined.set(l, [at]);
  }
  b.pending = [];
  for (const [l, added] of lined) l.byLine.addAll(added);
}

/** The indexes of the titles without a file that keep two pieces whole in `title`, near their place. */
function sharingTwoPieces(m: PieceIndex, items: number, title: string): number[] {
  if (m.piece.length < items) {
    const size = 2 ** Math.ceil(Math.log2(items));
    m.piece = new Float64Array(size);
    m.lookup = new Float64Array(size);
    m.hits = new Uint8Array(size);
  }
  const lookup = ++m.lastLookup;
  const twice: number[] = [];
  const n = title.length;
  // The lengths a match can have: under a tenth of the longer one apart.
  for (let length = Math.ceil(n * 0.9); length <= Math.floor(n / 0.9) + 1; length++) {
    if (!m.titleLengths.has(length) || Math.abs(length - n) >= FILELESS_DISTANCE * Math.max(length, n))
      continue;
    const cut = piecesOf(length);
    const shift = cut.length - 2;
    cut.forEach(({ at: place, size }, i) => {
      const piece = ++m.lastPiece;
      for (let q = Math.max(0, place - shift); q <= Math.min(n - size, place + shift); q++) {
        for (const at of m.byPiece.get(pieceKey(length, i, title, q, size)) ?? []) {
          // A piece found at two places counts once.
          if (m.piece[at] === piece) continue;
          m.piece[at] = piece;
          if (m.lookup[at] !== lookup) {
            m.lookup[at] = lookup;
            m.hits[at] = 0;
          }
          if (++(m.hits[at] as number) === 2) twice.push(at);
        }
      }
    });
  }
  return twice;
}

/**
 * Findings bucketed by file so a lookup compares only against findings of the same file; inside a
 * file, only against those whose lines are within the window (sorted line indexes, one per span
 * class, so a file holding thousands of findings costs a lookup O(log k + nearby), not O(k), and a
 * finding over a whole file does not widen every search). An exact title match is found by hash
 * first. Findings without a file, which match on the title alone, are compared only with those
 * keeping two pieces of the title near their place (titlePieces): each of them is not a small bucket.
 * Inside a file, a lookup by the title alone (a finding without lines, or the file's findings
 * without lines for one with lines) compares with each candidate up to TITLE_SCAN_MAX of them, and
 * past that with the few sharing the most of its rarer tokens (title-tokens.ts): there the rule is
 * checked against those only, so a close title can be missed (kept as a finding of its own), never
 * merged wrongly.
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
    b = {
      file,
      items: [],
      pending: [],
      lines: new Map(),
      noLine: [],
      byTitle: new Map(),
      pieces: file === null ? pieceIndex() : null,
      allTokens: null,
      noLineTokens: null,
    };
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
    const start = c.item.lineStart;
    // Distance 0 cannot be beaten: the earliest exact title that matches wins outright. Past a
    // few, the same title at a line is left to the window below, which finds the same one: a
    // bot's "missing return type" on each of a file's thousand functions is not walked per lookup.
    const same = b.byTitle.get(c.title) ?? [];
    if (same.length <= SCAN_BELOW || c.file === null || start === null) {
      for (const i of same) {
        const p = b.items[i];
        if (p && matchDistance(c, p) === 0 && accept(p.item)) return p.item;
      }
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
    if (b.pieces !== null && b.items.length > SCAN_BELOW) {
      for (const i of sharingTwoPieces(b.pieces, b.items.length, c.title)) consider(i);
    } else if (c.file === null || start === null) {
      // No line to narrow by: every finding of the file is a candidate (past TITLE_SCAN_MAX, the
      // ones sharing the most tokens).
      if (b.items.length <= TITLE_SCAN_MAX) for (let i = 0; i < b.items.length; i++) consider(i);
      else {
        b.allTokens ??= tokenIndex(b, b.items.keys());
        for (const i of b.allTokens.candidates(c.title, b.items.length)) consider(i);
      }
    } else {
      if (b.noLine.length <= TITLE_SCAN_MAX) for (const i of b.noLine) consider(i);
      else {
        b.noLineTokens ??= tokenIndex(b, b.noLine);
        for (const i of b.noLineTokens.candidates(c.title, b.items.length)) consider(i);
      }
      const end = c.item.lineEnd ?? start;
      const near = (i: number): boolean => {
        if ((b.items[i]?.item.lineStart ?? 0) > end + LINE_WINDOW) return false;
        consider(i);
        return true;
      };
      for (const l of b.lines.values()) l.byLine.visitFrom(start - LINE_WINDOW - l.maxSpan, near);
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
    const item = { at, file: raw.file, lineStart: raw.lineStart, lineEnd: raw.lineEnd, title: raw.title };
    index.addPrepared({ ...p, item });
  });
  return { findings, groups };
}
