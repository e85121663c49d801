import type { TaskLinePage } from "../../domain/store.js";
import { copyIn, put } from "../../util/byte-copy.js";
import { money } from "../../util/money.js";
import { holdsTokenShape } from "../../util/redact.js";
import { readInt4, readInt8, type TupleReader } from "./binary-copy.js";
import {
  APPROVED,
  bytes,
  COLON,
  COMPLETED,
  CYCLE,
  CYCLE_ONE,
  CYCLES,
  cut,
  DOT,
  ELLIPSIS,
  FAILED,
  FAILED_TEXT,
  FROM,
  fold,
  KIND,
  LINE_ROOM,
  MARK_OF,
  MARK_UNAPPROVED,
  NEEDS_HUMAN,
  REASON_WIDTH,
  RUNNING,
  SO_FAR,
  STATUS_CELL,
  STATUSES,
  TITLE_WIDTH,
  TWO_SPACES,
  TYPE_CELL,
  TYPES,
  trimEnd,
  VERDICTS,
  WAITING,
  WAITING_AT,
  WHY,
  which,
  writeInt,
} from "./line-bytes.js";
import { type LineRows, nativeLineRows } from "./native-line-rows.js";

/**
 * `fixpoint status`'s table from PostgreSQL at 100,000 tasks (issue 10): read as rows, each
 * task's columns made strings and its line formatted by the CLI took 1.1–1.3 s. A page is now the
 * binary COPY of the columns a line prints, written line by line into one buffer as
 * src/cli/render/status.ts statusLine writes them, the bytes never decoded. The twin of SQLite's
 * `task_lines` (migration 018), made when the page is read instead of when a task is written:
 * PostgreSQL keeps no per-task line, so a claim or a completion costs nothing more.
 *
 * A page is vouched for (TaskLinePage.lines) only when every row is one this text is certainly
 * statusLine's for:
 * - a known type, status and verdict (what the store reads back unchanged), and an ASCII id;
 * - no character outside the Basic Multilingual Plane in a text that is cut (JavaScript cuts and
 *   pads by UTF-16 units, this by characters);
 * - no token shape in what it prints or cuts (the table hides one in a title or reason before
 *   cutting it, and the print scans for them): a row whose `status_json` hint is `0` holds none
 *   (migrations 009 and 010); one whose hint is set (a URL's `://` sets it) is looked at with redact.ts
 *   once its line is written;
 * - none of the printing process's secret values in its title, reason or current stage (the
 *   texts the table may cut), nor in the reason as the line joins it to its kind.
 * Any other row leaves the page to the CLI. `test/store/pg-task-lines.test.ts` holds the text to
 * statusLine.
 */

/** The columns of a page, in the order the reader reads them (F). */
export const TASK_LINE_FIELDS = 13;
const F = {
  seq: 0,
  id: 1,
  type: 2,
  title: 3,
  status: 4,
  verdict: 5,
  reason: 6,
  cycle: 7,
  maxCycles: 8,
  stage: 9,
  parent: 10,
  cost: 11,
  hint: 12,
} as const;

/** One page as TASK_LINE_FIELDS columns; `clause` as taskJsonPageSql's. */
export function taskLinePageSql(clause: string): string {
  return `SELECT seq::int8, id, type, title, status, final_verdict, reason, cycle::int4, max_cycles::int4,
  current_stage, parent_id, cost_usd::float8, left(status_json, 1) FROM tasks${clause}`;
}

/**
 * What a line is made of, for the native writer (native-line-rows.ts, native/copy-lines.cc, whose
 * Parse reads it in this order): NUL-ended texts and numbers.
 */
const NATIVE_TABLE = Buffer.concat(
  [
    String(TYPES.length),
    ...TYPES.flatMap((t, i) => [t, TYPE_CELL[i] as Buffer]),
    String(STATUSES.length),
    ...STATUSES.flatMap((s, i) => [s, MARK_OF[i] as Buffer, STATUS_CELL[i] as Buffer]),
    String(VERDICTS.length),
    ...VERDICTS.flatMap((v, i) => [v, KIND[i] as Buffer, APPROVED[i] ? "1" : "0"]),
    MARK_UNAPPROVED,
    WAITING,
    WAITING_AT,
    FAILED_TEXT,
    COLON,
    DOT,
    SO_FAR,
    CYCLE,
    CYCLE_ONE,
    CYCLES,
    FROM,
    WHY,
    ELLIPSIS,
    TWO_SPACES,
    ...[RUNNING, COMPLETED, NEEDS_HUMAN, FAILED, TITLE_WIDTH, REASON_WIDTH, LINE_ROOM].map(String),
    ...[
      F.seq,
      F.id,
      F.type,
      F.title,
      F.status,
      F.verdict,
      F.reason,
      F.cycle,
      F.maxCycles,
      F.stage,
      F.parent,
      F.cost,
      F.hint,
    ].map(String),
  ].flatMap((piece) => [typeof piece === "string" ? Buffer.from(piece) : piece, Buffer.from([0])]),
);

/** Reads the lines of one page; `idWidth` and `secrets` as TaskLineQuery's. */
export class TaskLinePageReader implements TupleReader<TaskLinePage> {
  private out = Buffer.allocUnsafe(0);
  private length = 0;
  private count = 0;
  private lastSeq: number | null = null;
  private vouched = true;
  private widest = 0;
  private narrowest = Number.POSITIVE_INFINITY;
  /** Per line: where its id starts in `out`, and its length. */
  private idAt = new Int32Array(0);
  private idLength = new Int32Array(0);
  private readonly secrets: Buffer[];

  /**
   * Whole CopyData messages written by the native writer (native-line-rows.ts), when built: the
   * same lines as `tuple`'s (TupleReader.messages).
   */
  readonly messages: ((input: Buffer, at: number, end: number) => number) | null;
  /** The secret values, each NUL-ended, for the native writer. */
  private readonly secretBytes: Buffer;

  constructor(
    private readonly limit: number,
    private readonly idWidth: number,
    secrets: readonly string[],
    native: LineRows | null = nativeLineRows(),
  ) {
    this.secrets = secrets.filter((s) => s !== "").map(bytes);
    this.secretBytes = Buffer.concat(this.secrets.flatMap((s) => [s, Buffer.from([0])]));
    // A value holding a NUL (no environment's does) could not be told apart in secretBytes.
    this.messages =
      native === null || this.secrets.some((s) => s.includes(0))
        ? null
        : (input, at, end) => this.nativeMessages(native, input, at, end);
  }

  private nativeMessages(native: LineRows, input: Buffer, at: number, end: number): number {
    while (this.vouched) {
      const r = native(
        input,
        at,
        end,
        this.out,
        this.length,
        this.count,
        NATIVE_TABLE,
        this.secretBytes,
        this.idAt,
        this.idLength,
      );
      at = r.at;
      this.length = r.outAt;
      this.count = r.count;
      if (!Number.isNaN(r.lastSeq)) this.lastSeq = r.lastSeq;
      if (r.widest >= 0) {
        this.widest = Math.max(this.widest, r.widest);
        this.narrowest = Math.min(this.narrowest, r.narrowest);
      }
      if (r.stop === "message") return at;
      if (r.stop === "room") this.grow(this.out.length + LINE_ROOM);
      else this.growIds();
    }
    return at;
  }

  tuple(row: Buffer, starts: Int32Array, lengths: Int32Array): void {
    this.lastSeq = readInt8(row, starts[F.seq] as number);
    const n = this.count++;
    const idLength = lengths[F.id] as number;
    this.widest = Math.max(this.widest, idLength);
    this.narrowest = Math.min(this.narrowest, idLength);
    if (this.vouched) this.vouched = this.line(row, starts, lengths, n);
  }

  end(): TaskLinePage {
    const idWidth = Math.max(this.idWidth, this.widest);
    const page = { count: this.count, lastSeq: this.count === 0 ? null : this.lastSeq, idWidth };
    if (this.count === 0) return { ...page, lines: new Uint8Array(0) };
    if (!this.vouched) return { ...page, lines: null };
    if (this.narrowest >= idWidth) return { ...page, lines: this.out.subarray(0, this.length) };
    return { ...page, lines: this.padded(idWidth) };
  }

  /** Writes row `n`'s line; false when the row is not one this text is vouched for (see the header). */
  private line(row: Buffer, starts: Int32Array, lengths: Int32Array, n: number): boolean {
    // A row whose texts may hold a token (hint `1`, or none) is looked at closely once written.
    const hinted = lengths[F.hint] !== 1 || row[starts[F.hint] as number] !== 0x30;
    const type = which(TYPES, row, starts[F.type] as number, lengths[F.type] as number);
    const status = which(STATUSES, row, starts[F.status] as number, lengths[F.status] as number);
    const verdictLength = lengths[F.verdict] as number;
    const verdict = verdictLength < 0 ? -1 : which(VERDICTS, row, starts[F.verdict] as number, verdictLength);
    if (type < 0 || status < 0 || (verdict < 0 && verdictLength >= 0)) return false;
    if (lengths[F.cycle] !== 4 || lengths[F.maxCycles] !== 4 || lengths[F.cost] !== 8) return false;
    const idStart = starts[F.id] as number;
    const idEnd = idStart + (lengths[F.id] as number);
    for (let i = idStart; i < idEnd; i++) if ((row[i] as number) >= 0x80) return false;
    const title = starts[F.title] as number;
    const titleEnd = title + Math.max(0, lengths[F.title] as number);
    // The texts the table may cut, whether this line cuts them or not, as SQLite's lines have it.
    if (this.secrets.length > 0) {
      if (this.holdsSecret(row, title, titleEnd)) return false;
      for (const f of [F.reason, F.stage])
        if (
          this.holdsSecret(
            row,
            starts[f] as number,
            (starts[f] as number) + Math.max(0, lengths[f] as number),
          )
        )
          return false;
    }

    let texts = idEnd - idStart + titleEnd - title + Math.max(0, lengths[F.parent] as number);
    texts += 2 * (Math.max(0, lengths[F.stage] as number) + Math.max(0, lengths[F.reason] as number));
    if (this.length + LINE_ROOM + texts > this.out.length) this.grow(this.length + LINE_ROOM + texts);
    if (n >= this.idAt.length) this.growIds();
    const out = this.out;
    const lineStart = this.length;
    const unapproved = status === COMPLETED && verdict >= 0 && !APPROVED[verdict];
    let o = put(out, lineStart, unapproved ? MARK_UNAPPROVED : (MARK_OF[status] as Buffer));
    this.idAt[n] = o;
    this.idLength[n] = idEnd - idStart;
    o = copyIn(out, o, row, idStart, idEnd);
    o = put(out, o, TYPE_CELL[type] as Buffer);
    o = cut(row, title, titleEnd, out, o, TITLE_WIDTH, true);
    if (o < 0) return false;
    o = put(out, o, STATUS_CELL[status] as Buffer);
    o =
      status === RUNNING
        ? running(row, starts, lengths, out, o)
        : this.stopped(row, starts, lengths, o, status, verdict, hinted);
    if (o < 0) return false;
    if (status !== RUNNING && verdict < 0) o = trimEnd(out, lineStart, o);
    // The table hides a token in the whole title before cutting it, and the print scans the line.
    if (hinted && (tokenShaped(row, title, titleEnd) || tokenShaped(out, lineStart, o))) return false;
    out[o++] = 0x0a;
    this.length = o;
    return true;
  }

  /**
   * The rest of a line that is not running's, written at `o`: the verdict, the cycles, the cost and
   * the parent, then why it stopped or needs a person (attention.ts taskReason: the kind or
   * `failed`, and the stored reason folded), cut. -1 when the text it cuts cannot be vouched for.
   */
  private stopped(
    row: Buffer,
    starts: Int32Array,
    lengths: Int32Array,
    at: number,
    status: number,
    verdict: number,
    hinted: boolean,
  ): number {
    const out = this.out;
    let o = at;
    const parent = starts[F.parent] as number;
    const parentEnd = parent + Math.max(0, lengths[F.parent] as number);
    if (verdict >= 0) {
      const cycle = readInt4(row, starts[F.cycle] as number);
      o = put(out, o, VERDICTS[verdict] as Buffer);
      out[o++] = 0x20;
      out[o++] = 0x28;
      o = put(out, writeInt(out, o, cycle), cycle === 1 ? CYCLE_ONE : CYCLES);
      const cost = row.readDoubleBE(starts[F.cost] as number);
      if (cost > 0) o += out.write(`  ${money(cost)}`, o, "latin1");
      if (parentEnd > parent)
        o = copyIn(out, put(out, put(out, o, TWO_SPACES), FROM), row, parent, parentEnd);
    } else if (parentEnd > parent) o = copyIn(out, put(out, o, FROM), row, parent, parentEnd);

    const why = o;
    const text = put(out, o, WHY);
    o = text;
    const stage = starts[F.stage] as number;
    const stageEnd = stage + Math.max(0, lengths[F.stage] as number);
    if (status === NEEDS_HUMAN) {
      if (verdict >= 0) o = put(out, o, KIND[verdict] as Buffer);
      else
        o =
          stageEnd > stage
            ? copyIn(out, put(out, o, WAITING_AT), row, stage, stageEnd)
            : put(out, o, WAITING);
    } else if (status === FAILED) o = put(out, o, FAILED_TEXT);
    // The folded reason goes after room for the `: ` that joins it to a kind, written once it is not empty.
    const kindEnd = o;
    const reason = starts[F.reason] as number;
    const folded = kindEnd > text ? kindEnd + COLON.length : kindEnd;
    const foldedEnd = fold(row, reason, reason + Math.max(0, lengths[F.reason] as number), out, folded);
    if (foldedEnd > folded) {
      if (kindEnd > text) put(out, kindEnd, COLON);
      o = foldedEnd;
    }
    if (o === text) return why;
    if (this.holdsSecret(out, text, o) || (hinted && tokenShaped(out, text, o))) return -1;
    return cut(out, text, o, out, text, REASON_WIDTH, false);
  }

  /** Whether `buf[start, end)` holds one of the secret values (the table hides one before cutting). */
  private holdsSecret(buf: Buffer, start: number, end: number): boolean {
    if (this.secrets.length === 0) return false;
    const text = buf.subarray(start, end);
    return this.secrets.some((s) => text.indexOf(s) >= 0);
  }

  private grow(most: number): void {
    const expected = this.count <= 1 ? Math.min(this.limit, 100_000) * 128 : 0;
    const grown = Buffer.allocUnsafe(Math.max(most, this.out.length * 2, expected));
    this.out.copy(grown, 0, 0, this.length);
    this.out = grown;
  }

  private growIds(): void {
    const size = Math.max(16, this.idAt.length * 2, Math.min(this.limit, 16_384));
    const idAt = new Int32Array(size);
    const idLength = new Int32Array(size);
    idAt.set(this.idAt);
    idLength.set(this.idLength);
    this.idAt = idAt;
    this.idLength = idLength;
  }

  /** The page with every id shorter than `width` padded with spaces to it. */
  private padded(width: number): Buffer {
    let extra = 0;
    for (let i = 0; i < this.count; i++) extra += width - (this.idLength[i] as number);
    const out = Buffer.allocUnsafe(this.length + extra);
    let from = 0;
    let o = 0;
    for (let i = 0; i < this.count; i++) {
      const idEnd = (this.idAt[i] as number) + (this.idLength[i] as number);
      o += this.out.copy(out, o, from, idEnd);
      const pad = width - (this.idLength[i] as number);
      out.fill(0x20, o, o + pad);
      o += pad;
      from = idEnd;
    }
    o += this.out.copy(out, o, from, this.length);
    return out.subarray(0, o);
  }
}

/** The rest of a running task's line, written at `o`: the cycle, the stage and the cost so far. */
function running(row: Buffer, starts: Int32Array, lengths: Int32Array, out: Buffer, at: number): number {
  let o = put(out, at, CYCLE);
  o = writeInt(out, o, readInt4(row, starts[F.cycle] as number));
  out[o++] = 0x2f;
  o = writeInt(out, o, readInt4(row, starts[F.maxCycles] as number));
  const stage = starts[F.stage] as number;
  const stageEnd = stage + Math.max(0, lengths[F.stage] as number);
  if (stageEnd > stage) o = copyIn(out, put(out, o, DOT), row, stage, stageEnd);
  const cost = row.readDoubleBE(starts[F.cost] as number);
  if (cost > 0) {
    o = put(out, o, DOT);
    o = put(out, o + out.write(money(cost), o, "latin1"), SO_FAR);
  }
  return o;
}

/** Whether `buf[start, end)` holds a token shape the CLI would hide (redact.ts). */
function tokenShaped(buf: Buffer, start: number, end: number): boolean {
  return holdsTokenShape(buf.toString("utf8", start, end));
}
