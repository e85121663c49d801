import type { TaskJsonPage } from "../../domain/store.js";
import { FINAL_VERDICTS, TASK_STATUSES } from "../../domain/types.js";
import { put } from "../../util/byte-copy.js";
import { IsoTimeBytes } from "../../util/iso-time-bytes.js";
import { readInt8, type TupleReader } from "./binary-copy.js";
import { PIECE_SEPARATOR } from "./migrations/009_status_json.js";
import { type JsonRows, nativeJsonRows } from "./native-json-rows.js";
import { STATUS_AFTER, STATUS_KEY_BYTES, UPDATED_AFTER } from "./task-json-sql.js";

/** The JSON text of each status and final verdict fixpoint writes, none of which holds a token literal. */
const KNOWN_JSON: ReadonlyMap<string, string> = new Map(
  [...TASK_STATUSES, ...FINAL_VERDICTS].map((v) => [v, JSON.stringify(v)]),
);
const SEPARATOR = PIECE_SEPARATOR.charCodeAt(0);
const NULL_OBJECT = Buffer.from("null");
const UPDATED_AT = Buffer.from(',"updated_at":"');
const KEYS = STATUS_KEY_BYTES;
/** The keys' bytes and the closing brace. */
const KEY_BYTES = KEYS.reduce((n, k) => n + k.length, 0) + 1;
/** The longest text IsoTimeBytes writes, and the quote after it. */
const TIME_ROOM = 28;
/** A message longer than its stored text by more than this holds more than one row (object()). */
const ROW_SLACK = 256;
/** Distinct status and verdict pairs kept: fixpoint writes a few dozen; any past these is looked at each time. */
const PAIRS_KEPT = 64;

/**
 * Page buffers given back (TaskJsonPage.release), for the pages read after them: at 10,000 tasks
 * a page, each page in fresh memory cost its page faults (4 MiB, about 1,000 faults) in the
 * process's own time. A listing holds two at once. A larger buffer than SPARE_MOST (a page of
 * long titles) is let go, so a long-lived process keeps 16 MiB at most.
 */
const spare: Buffer[] = [];
const SPARE_KEPT = 2;
const SPARE_MOST = 8 * 2 ** 20;

/** `,"status":…,"final_verdict":…` of one status and verdict, and whether fixpoint writes both. */
interface Pair {
  /** The status's and the verdict's bytes as stored (null for NULL). */
  status: Buffer | null;
  verdict: Buffer | null;
  bytes: Buffer;
  known: boolean;
}

/**
 * A page of `status --json`'s objects from the binary COPY of `status_json, status,
 * final_verdict, updated_at, seq` (taskJsonPageSql): each object is the stored values, each after
 * its key, with the status and final verdict after the title and the update time after
 * `created_at` (migration 010), copied byte for byte into one buffer, comma-separated, the text
 * never decoded. The page vouches for no token shape when every stored hint is `0` and every
 * status and verdict is one fixpoint writes. The buffer is sized from the first row for the page's `limit` rows, and doubled if they
 * turn out longer: buffers grown from small ones cost the copies and, outside V8's heap, the
 * collections they prompt.
 */
export class TaskJsonPageReader implements TupleReader<TaskJsonPage> {
  private bytes: Buffer = EMPTY;
  private length = 0;
  private count = 0;
  private lastSeq: number | null = null;
  private hinted = false;
  private readonly time = new IsoTimeBytes();
  private readonly pairs: Pair[] = [];
  /** Where the separators of the row being written are. */
  private readonly cuts = new Int32Array(KEYS.length - 1);

  /**
   * Whole CopyData messages written by the native writer (native-json-rows.ts), when built: the
   * same bytes as `tuple`'s, without V8's interpreter on the first pages (TupleReader.messages).
   */
  readonly messages: ((input: Buffer, at: number, end: number) => number) | null;

  constructor(
    private readonly limit: number,
    native: JsonRows | null = nativeJsonRows(),
  ) {
    this.messages = native === null ? null : (input, at, end) => this.nativeMessages(native, input, at, end);
  }

  private nativeMessages(native: JsonRows, input: Buffer, at: number, end: number): number {
    for (;;) {
      const r = native(input, at, end, this.bytes, this.length, this.count);
      at = r.at;
      this.length = r.outAt;
      this.count = r.count;
      if (!Number.isNaN(r.lastSeq)) this.lastSeq = r.lastSeq;
      if (r.hinted) this.hinted = true;
      if (r.room === 0) return at;
      this.grow(this.length + r.room);
    }
  }

  tuple(row: Buffer, starts: Int32Array, lengths: Int32Array): void {
    const start = starts[0] as number;
    const end = start + Math.max(0, lengths[0] as number);
    const pair = this.pairOf(row, starts, lengths);
    if (row[start] !== 0x30 || !pair.known) this.hinted = true;
    const ms = lengths[3] === 8 ? readInt8(row, starts[3] as number) : null;
    // The stored text is copied with the message it came in, whole when that is this row alone
    // (PostgreSQL sends a row a message); a message holding more is cut to the text first.
    const alone = row.length <= end - start + ROW_SLACK;
    const text = alone ? row : row.subarray(start, end);
    const from = alone ? start : 0;
    // Room for the object (the stored text less its hint and separators, with the pair and the
    // time put in) and for the text's message copied after it (object()).
    const most =
      this.length + 1 + KEY_BYTES + pair.bytes.length + UPDATED_AT.length + TIME_ROOM + text.length;
    if (most > this.bytes.length) this.grow(most);
    const out = this.bytes;
    if (this.count > 0) out[this.length++] = 0x2c;
    this.length = this.object(text, out, this.length, from, from + (end - start), pair, ms);
    this.lastSeq = readInt8(row, starts[4] as number);
    this.count++;
  }

  end(): TaskJsonPage {
    const bytes = this.bytes;
    let released = false;
    return {
      json: bytes.subarray(0, this.length),
      count: this.count,
      lastSeq: this.lastSeq,
      // As SQLite's: an empty page vouches for nothing.
      tokenFree: this.count > 0 && !this.hinted,
      release: () => {
        if (released) return;
        released = true;
        giveBack(bytes);
      },
    };
  }

  /**
   * Writes one object at `at` from the stored text at `text[start, end)`: its values, each after
   * its key, the pair after the title and the time after `created_at`; returns where it ends.
   * `text` is copied whole past where the object can reach, then each value moved down into place
   * (copyWithin) with the keys written between them: on Node 20 a Buffer.copy of part of a buffer
   * makes a view object, and their collection cost more than the copying.
   */
  private object(
    text: Buffer,
    out: Buffer,
    at: number,
    start: number,
    end: number,
    pair: Pair,
    ms: number | null,
  ): number {
    // Not a row migration 010 wrote (a hand edit cannot reach a generated column): nothing to print.
    if (ms === null || start >= end || !this.separators(text, start, end)) {
      out.set(NULL_OBJECT, at);
      return at + NULL_OBJECT.length;
    }
    // Where the text's byte 0 lands: each value moves down to its place, never over bytes not yet moved.
    const base = at + KEY_BYTES + pair.bytes.length + UPDATED_AT.length + TIME_ROOM;
    out.set(text, base);
    let o = at;
    let from = start + 1;
    const cuts = this.cuts;
    for (let i = 0; i < KEYS.length; i++) {
      o = put(out, o, KEYS[i] as Buffer);
      const to = i + 1 < KEYS.length ? (cuts[i] as number) : end;
      o = move(out, o, base + from, base + to);
      from = to + 1;
      if (i === STATUS_AFTER) {
        o = put(out, o, pair.bytes);
      } else if (i === UPDATED_AFTER) {
        o = put(out, o, UPDATED_AT);
        o += this.time.write(out, o, ms);
        out[o++] = 0x22;
      }
    }
    out[o++] = 0x7d;
    return o;
  }

  /** Finds the separators between the values in `text[start + 1, end)`: whether there is one fewer than values. */
  private separators(text: Buffer, start: number, end: number): boolean {
    const cuts = this.cuts;
    let n = 0;
    for (let i = start + 1; i < end; i++) {
      if (text[i] !== SEPARATOR) continue;
      if (n === cuts.length) return false;
      cuts[n++] = i;
    }
    return n === cuts.length;
  }

  /** The status and verdict's JSON, found by their bytes. */
  private pairOf(row: Buffer, starts: Int32Array, lengths: Int32Array): Pair {
    const s = starts[1] as number;
    const sl = lengths[1] as number;
    const v = starts[2] as number;
    const vl = lengths[2] as number;
    for (const kept of this.pairs)
      if (same(kept.status, row, s, sl) && same(kept.verdict, row, v, vl)) return kept;
    const status = sl < 0 ? null : row.toString("utf8", s, s + sl);
    const verdict = vl < 0 ? null : row.toString("utf8", v, v + vl);
    const statusJson = status === null ? "null" : KNOWN_JSON.get(status);
    const verdictJson = verdict === null ? "null" : KNOWN_JSON.get(verdict);
    const pair = {
      status: sl < 0 ? null : Buffer.from(row.subarray(s, s + sl)),
      verdict: vl < 0 ? null : Buffer.from(row.subarray(v, v + vl)),
      bytes: Buffer.from(
        `,"status":${statusJson ?? JSON.stringify(status)},"final_verdict":${verdictJson ?? JSON.stringify(verdict)}`,
      ),
      known: statusJson !== undefined && verdictJson !== undefined,
    };
    if (this.pairs.length < PAIRS_KEPT) this.pairs.push(pair);
    return pair;
  }

  private grow(most: number): void {
    const expected = this.count === 0 ? Math.min(this.limit, 100_000) * (most + 64) : 0;
    const size = Math.max(most, this.bytes.length * 2, expected);
    const kept = spare.findIndex((b) => b.length >= size);
    const grown = kept >= 0 ? (spare.splice(kept, 1)[0] as Buffer) : Buffer.allocUnsafe(size);
    this.bytes.copy(grown, 0, 0, this.length);
    giveBack(this.bytes);
    this.bytes = grown;
  }
}

const EMPTY = Buffer.alloc(0);

function giveBack(bytes: Buffer): void {
  if (bytes.length > 0 && bytes.length <= SPARE_MOST && spare.length < SPARE_KEPT && !spare.includes(bytes))
    spare.push(bytes);
}

/** Moves of this many bytes or fewer are made byte by byte: most values are shorter, and a call of copyWithin costs more. */
const SHORT = 16;

/** Moves `out[from, to)` down to `at`; returns where it ends there. */
function move(out: Buffer, at: number, from: number, to: number): number {
  if (to - from > SHORT) {
    out.copyWithin(at, from, to);
    return at + to - from;
  }
  let o = at;
  for (let i = from; i < to; i++) out[o++] = out[i] as number;
  return o;
}

/** Whether `row[start, start + length)` (NULL when length is -1) holds `kept`'s bytes. */
function same(kept: Buffer | null, row: Buffer, start: number, length: number): boolean {
  if (kept === null || length < 0) return kept === null && length < 0;
  if (kept.length !== length) return false;
  for (let i = 0; i < length; i++) if (kept[i] !== row[start + i]) return false;
  return true;
}
