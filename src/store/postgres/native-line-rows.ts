import { loadRowWriter } from "../../util/native-addon.js";

/**
 * `fixpoint status`'s lines written from the socket's bytes by native/copy-lines.cc (the addon
 * `fixpoint_copy_lines`), for TaskLinePageReader. Without the addon the reader writes every line
 * in JavaScript, the same bytes (task-line-page.test.ts compares the two).
 */
/**
 * A call's input, the page it writes into (from `outAt`, holding `count` lines), a line's pieces,
 * the secret values to look for (each NUL-ended), the ids' places.
 */
type RowsArgs = [
  input: Buffer,
  at: number,
  end: number,
  out: Buffer,
  outAt: number,
  count: number,
  table: Buffer,
  secrets: Buffer,
  idAt: Int32Array,
  idLength: Int32Array,
];

interface Addon {
  lineRows(...args: [...RowsArgs, result: Float64Array]): void;
}

/** Where one call stopped (copy-lines.cc's `result`). */
export interface LineRowsResult {
  at: number;
  outAt: number;
  count: number;
  /** The last row's seq, or NaN when it wrote none. */
  lastSeq: number;
  /** The longest and the shortest id it wrote, -1 when none. */
  widest: number;
  narrowest: number;
  /** Why it stopped: a message it leaves, room in the page's buffer, room for the ids. */
  stop: "message" | "room" | "ids";
}

export type LineRows = (...args: RowsArgs) => LineRowsResult;

const STOPS = ["message", "room", "ids"] as const;

let loaded: LineRows | null | undefined;

/** The native writer, or null where the addon is not built (Linux and macOS build it), or set off with FIXPOINT_NATIVE_ROWS=0. */
export function nativeLineRows(): LineRows | null {
  if (loaded !== undefined) return loaded;
  const addon = loadRowWriter<Addon>("fixpoint_copy_lines");
  loaded = addon === null ? null : bind(addon);
  return loaded;
}

function bind(addon: Addon): LineRows {
  const raw = new Float64Array(7);
  const result: LineRowsResult = {
    at: 0,
    outAt: 0,
    count: 0,
    lastSeq: Number.NaN,
    widest: -1,
    narrowest: -1,
    stop: "message",
  };
  return (input, at, end, out, outAt, count, table, secrets, idAt, idLength) => {
    addon.lineRows(input, at, end, out, outAt, count, table, secrets, idAt, idLength, raw);
    result.at = raw[0] as number;
    result.outAt = raw[1] as number;
    result.count = raw[2] as number;
    result.lastSeq = raw[3] as number;
    result.widest = raw[4] as number;
    result.narrowest = raw[5] as number;
    result.stop = STOPS[raw[6] as number] ?? "message";
    return result;
  };
}
