/**
 * PostgreSQL's binary COPY as the server sends it, for the readers' tests
 * (src/store/postgres/binary-copy.ts): fields, tuples, and the whole stream handed to a splitter a
 * row a message, all at once, or cut anywhere.
 */

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
const HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);
const TRAILER = Buffer.from([0xff, 0xff]);

/** A field: its 32-bit length (-1 for NULL) and its bytes. */
export function copyField(bytes: Buffer | null): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(bytes === null ? -1 : bytes.length);
  return bytes === null ? length : Buffer.concat([length, bytes]);
}

export function int8Bytes(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}

export function int4Bytes(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

export function float8Bytes(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(n);
  return b;
}

/** A tuple of these fields (already made with copyField). */
export function copyTuple(fields: readonly Buffer[]): Buffer {
  const count = Buffer.alloc(2);
  count.writeInt16BE(fields.length);
  return Buffer.concat([count, ...fields]);
}

/**
 * Hands the COPY of `tuples` to `data`: "row" as PostgreSQL sends them (the header with the first
 * row, then a row a message, the trailer alone), "all" in one message, or cut at these offsets.
 */
export function feedCopy(
  data: (chunk: Buffer) => void,
  tuples: readonly Buffer[],
  messages: "row" | "all" | number[],
): void {
  if (messages === "row") {
    for (const [i, t] of tuples.entries()) data(i === 0 ? Buffer.concat([HEADER, t]) : t);
    if (tuples.length === 0) data(HEADER);
    data(TRAILER);
    return;
  }
  const all = Buffer.concat([HEADER, ...tuples, TRAILER]);
  const cuts =
    messages === "all" ? [] : [...new Set(messages.map((c) => c % all.length))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...cuts, all.length]) {
    if (to <= from) continue;
    data(Buffer.from(all.subarray(from, to)));
    from = to;
  }
}

/** The header, for a test that sends its messages itself. */
export const COPY_HEADER = HEADER;
export const COPY_TRAILER = TRAILER;
