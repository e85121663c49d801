import {
  ESCALATED_KIND,
  FINAL_VERDICTS,
  NEEDS_KIND_BY_VERDICT,
  STATUS_MARKS,
  TASK_STATUSES,
  TASK_TYPES,
} from "../../domain/types.js";
import { copyIn, put } from "../../util/byte-copy.js";
import { isRegexSpace } from "../../util/regex-space.js";

/**
 * The bytes of `fixpoint status`'s lines as src/cli/render/status.ts statusLine writes them: the
 * pieces a line is made of, and the writers of its texts (cut, padded, folded, trimmed) into one
 * buffer, for task-line-page.ts and, through it, the native writer (native/copy-lines.cc).
 */

export const bytes = (text: string) => Buffer.from(text, "utf8");

export const TYPES = TASK_TYPES.map(bytes);
export const STATUSES = TASK_STATUSES.map(bytes);
export const VERDICTS = FINAL_VERDICTS.map(bytes);
/** `  <mark> ` per status, and the mark of a completed task whose verdict is not an approval. */
export const MARK_OF = TASK_STATUSES.map((s) => bytes(`  ${STATUS_MARKS[s]} `));
export const MARK_UNAPPROVED = bytes("  ! ");
export const APPROVED = FINAL_VERDICTS.map((v) => v.startsWith("APPROVED"));
/** The id's two spaces and the type padded to 9, with its two spaces. */
export const TYPE_CELL = TASK_TYPES.map((t) => bytes(`  ${t.padEnd(9)}  `));
/** The title's two spaces, the status padded to 11 and its two spaces. */
export const STATUS_CELL = TASK_STATUSES.map((s) => bytes(`  ${s.padEnd(11)}  `));
export const RUNNING = TASK_STATUSES.indexOf("running");
export const COMPLETED = TASK_STATUSES.indexOf("completed");
export const NEEDS_HUMAN = TASK_STATUSES.indexOf("needs_human");
export const FAILED = TASK_STATUSES.indexOf("failed");
/** attention.ts needsKind for a task that needs a person, by verdict. */
export const KIND = FINAL_VERDICTS.map((v) => bytes(NEEDS_KIND_BY_VERDICT[v] ?? ESCALATED_KIND));
export const WAITING = bytes("waiting");
export const WAITING_AT = bytes("waiting at ");
export const FAILED_TEXT = bytes("failed");
export const COLON = bytes(": ");
export const DOT = bytes(" · ");
export const SO_FAR = bytes(" so far");
export const CYCLE = bytes("cycle ");
export const CYCLE_ONE = bytes(" cycle)");
export const CYCLES = bytes(" cycles)");
export const FROM = bytes("↳ from ");
export const WHY = bytes("  — ");
export const ELLIPSIS = bytes("…");
export const TWO_SPACES = bytes("  ");

export const TITLE_WIDTH = 28;
/** statusLine's REASON_WIDTH. */
export const REASON_WIDTH = 72;
/** Room for a line beyond its texts' bytes (marks, cells, numbers, a verdict, the kind). */
export const LINE_ROOM = 256;

/** The index of the value in `list` that `row[start, start + length)` holds; -1 for none or NULL. */
export function which(list: readonly Buffer[], row: Buffer, start: number, length: number): number {
  if (length < 0) return -1;
  for (let v = 0; v < list.length; v++) {
    const value = list[v] as Buffer;
    if (value.length !== length) continue;
    let i = 0;
    while (i < length && value[i] === row[start + i]) i++;
    if (i === length) return v;
  }
  return -1;
}

/** `String(n)` of a 32-bit integer, written at `o` as ASCII; returns where it ends. */
export function writeInt(out: Buffer, o: number, n: number): number {
  let at = o;
  if (n < 0) out[at++] = 0x2d;
  let rest = Math.abs(n);
  let digits = 1;
  while (rest >= 10 ** digits) digits++;
  for (let d = digits - 1; d >= 0; d--) {
    out[at + d] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}

/**
 * format.ts truncate without the redaction (the header says why none is needed): `src[start,
 * end)` written at `o` whole when it has `max` characters or fewer, else its first `max - 1` and
 * an ellipsis; with `pad`, spaces after it up to `max` characters. `src` may be `out` with `o` at
 * `start`. -1 for a text holding a character outside the Basic Multilingual Plane (4 UTF-8 bytes).
 */
export function cut(
  src: Buffer,
  start: number,
  end: number,
  out: Buffer,
  o: number,
  max: number,
  pad: boolean,
): number {
  let chars = 0;
  let keep = end;
  for (let i = start; i < end; i++) {
    const b = src[i] as number;
    if (b >= 0xf0) return -1;
    if ((b & 0xc0) === 0x80) continue;
    if (chars === max - 1) keep = i;
    chars++;
  }
  if (chars <= max) {
    const written = src === out && o === start ? end : copyIn(out, o, src, start, end);
    if (!pad) return written;
    out.fill(0x20, written, written + max - chars);
    return written + max - chars;
  }
  return put(out, src === out && o === start ? keep : copyIn(out, o, src, start, keep), ELLIPSIS);
}

/**
 * `row[start, end)` with every run of JavaScript's `\s` made one space and none at either end
 * (attention.ts taskReason), written at `o`; returns where it ends (`o` for an empty text).
 */
export function fold(row: Buffer, start: number, end: number, out: Buffer, o: number): number {
  let at = o;
  let space = false;
  for (let i = start; i < end; ) {
    const b = row[i] as number;
    const size = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    const code =
      size === 1
        ? b
        : size === 2
          ? ((b & 0x1f) << 6) | ((row[i + 1] as number) & 0x3f)
          : size === 3
            ? ((b & 0x0f) << 12) | (((row[i + 1] as number) & 0x3f) << 6) | ((row[i + 2] as number) & 0x3f)
            : -1;
    if (code >= 0 && isRegexSpace(code)) space = at > o;
    else {
      if (space) out[at++] = 0x20;
      space = false;
      const stop = Math.min(end, i + size);
      for (let j = i; j < stop; j++) out[at++] = row[j] as number;
    }
    i += size;
  }
  return at;
}

/** `out[start, end)` less the JavaScript white space at its end (String.prototype.trimEnd); returns the new end. */
export function trimEnd(out: Buffer, start: number, end: number): number {
  let e = end;
  while (e > start) {
    const b = out[e - 1] as number;
    if (b < 0x80) {
      if (!isRegexSpace(b)) return e;
      e--;
      continue;
    }
    // The start of the last character: back over its continuation bytes.
    let s = e - 1;
    while (s > start && ((out[s] as number) & 0xc0) === 0x80) s--;
    const lead = out[s] as number;
    const code =
      e - s === 2
        ? ((lead & 0x1f) << 6) | ((out[s + 1] as number) & 0x3f)
        : e - s === 3
          ? ((lead & 0x0f) << 12) | (((out[s + 1] as number) & 0x3f) << 6) | ((out[s + 2] as number) & 0x3f)
          : -1;
    if (code < 0 || !isRegexSpace(code)) return e;
    e = s;
  }
  return e;
}
