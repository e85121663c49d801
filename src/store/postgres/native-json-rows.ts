import { FINAL_VERDICTS, TASK_STATUSES } from "../../domain/types.js";
import { loadRowWriter } from "../../util/native-addon.js";
import { STATUS_AFTER, STATUS_KEY_BYTES, UPDATED_AFTER } from "./task-json-sql.js";

/**
 * `status --json`'s objects written from the socket's bytes by native/copy-json.cc (the addon
 * `fixpoint_copy_json`), for TaskJsonPageReader. Without the addon the reader writes every row in
 * JavaScript, the same bytes (copy-socket.test.ts compares the two).
 */
/** A call's input and the page it writes into: `input[at, end)`, the page's buffer from `outAt`, holding `count` objects. */
type RowsArgs = [input: Buffer, at: number, end: number, out: Buffer, outAt: number, count: number];

interface Addon {
  jsonRows(
    ...args: [
      ...RowsArgs,
      known: Buffer,
      keys: Buffer,
      statusAfter: number,
      updatedAfter: number,
      result: Float64Array,
    ]
  ): void;
}

/** Where one call stopped (copy-json.cc's `result`). */
export interface JsonRowsResult {
  /** Where it stopped in the input. */
  at: number;
  /** Where the page's buffer ends now. */
  outAt: number;
  /** The objects in the page now. */
  count: number;
  /** The last row's seq, or NaN when it wrote none. */
  lastSeq: number;
  /** Whether a row's token hint was not `0`. */
  hinted: boolean;
  /** The bytes a row needed when it stopped for room, else 0. */
  room: number;
}

export type JsonRows = (...args: RowsArgs) => JsonRowsResult;

/**
 * The statuses and verdicts fixpoint writes, each NUL-ended: the addon writes these as `"name"`
 * and leaves any other to the JavaScript reader, which escapes it and looks at its row for tokens.
 */
const KNOWN = Buffer.from(
  [...TASK_STATUSES, ...FINAL_VERDICTS]
    .filter((name) => JSON.stringify(name) === `"${name}"` && !name.includes("\0"))
    .map((name) => `${name}\0`)
    .join(""),
);

/** What goes before each stored value (migration 010), each NUL-ended. */
const KEYS = Buffer.concat(STATUS_KEY_BYTES.flatMap((k) => [k, Buffer.from([0])]));

let loaded: JsonRows | null | undefined;

/** The native writer, or null where the addon is not built (Linux and macOS build it), or set off with FIXPOINT_NATIVE_ROWS=0. */
export function nativeJsonRows(): JsonRows | null {
  if (loaded !== undefined) return loaded;
  const addon = loadRowWriter<Addon>("fixpoint_copy_json");
  loaded = addon === null ? null : bind(addon);
  return loaded;
}

function bind(addon: Addon): JsonRows {
  const raw = new Float64Array(6);
  const result: JsonRowsResult = { at: 0, outAt: 0, count: 0, lastSeq: Number.NaN, hinted: false, room: 0 };
  return (input, at, end, out, outAt, count) => {
    addon.jsonRows(input, at, end, out, outAt, count, KNOWN, KEYS, STATUS_AFTER, UPDATED_AFTER, raw);
    result.at = raw[0] as number;
    result.outAt = raw[1] as number;
    result.count = raw[2] as number;
    result.lastSeq = raw[3] as number;
    result.hinted = raw[4] === 1;
    result.room = raw[5] as number;
    return result;
  };
}
