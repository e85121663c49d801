import type { Duplex } from "node:stream";
import { readInt4 } from "./binary-copy.js";

const COPY_OUT_RESPONSE = 0x48; // 'H'
const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'

/** The messages of a COPY's answer up to its end: the rest go to node-postgres. */
const ours = (type: number | undefined): boolean =>
  type === COPY_DATA || type === COPY_OUT_RESPONSE || type === COPY_DONE;

/** What the socket's CopyData messages are handed to (BinaryCopySplitter). */
export interface CopyMessages {
  /** Whole CopyData messages read natively from `input[at, end)`: where that stopped. */
  messages(input: Buffer, at: number, end: number): number;
  /** One CopyData message's bytes, read in JavaScript. */
  data(chunk: Buffer): void;
}

/**
 * Reads a binary COPY's response from the connection's socket itself, in place of node-postgres'
 * parser, for a reader that writes whole messages natively (TaskJsonPageReader): node-postgres
 * makes a message object, a Buffer and an event for each row, which the first 20,000 rows of a
 * listing ran in V8's interpreter (docs/benchmarks.md). Installed when the statement is handed to
 * the connection, before it is sent: the response must begin with CopyOutResponse. From the first
 * message that is not the COPY's own (CommandComplete, an error, a notice) the socket's bytes go
 * back to node-postgres' parser, which ends the statement as it would have. CopyData messages the
 * native reader leaves (the header, a cut tuple) are handed to `data`; after `failed()` turns true
 * the data is read past and dropped. Returns the function that gives the socket back, which does
 * nothing once it has.
 */
export function readCopyFromSocket(
  stream: Duplex,
  into: CopyMessages,
  failed: () => boolean,
  fail: (e: unknown) => void,
): () => void {
  const parsers = stream.listeners("data") as ((chunk: Buffer) => void)[];
  stream.removeAllListeners("data");
  let carry: Buffer | null = null;
  let started = false;
  let given = false;
  const giveBack = (rest: Buffer | null): void => {
    if (given) return;
    given = true;
    stream.removeListener("data", onData);
    for (const parser of parsers) stream.on("data", parser);
    if (rest !== null && rest.length > 0) for (const parser of parsers) parser(rest);
  };
  /** Reads the messages at `bytes[at, end)`; a message cut at the end is kept in `carry`. */
  const read = (bytes: Buffer, at: number, end: number): void => {
    while (at + 5 <= end) {
      if (!failed()) {
        try {
          at = into.messages(bytes, at, end);
        } catch (e) {
          fail(e);
        }
        if (at + 5 > end) break;
      }
      const type = bytes[at];
      const length = readInt4(bytes, at + 1);
      if (!ours(type) || length < 4) {
        giveBack(bytes.subarray(at));
        return;
      }
      if (at + 1 + length > end) break;
      if (type === COPY_DATA && !failed()) {
        try {
          into.data(bytes.subarray(at + 5, at + 1 + length));
        } catch (e) {
          fail(e);
        }
      }
      at += 1 + length;
    }
    if (at < end) carry = Buffer.from(bytes.subarray(at, end));
  };
  const onData = (chunk: Buffer): void => {
    if (!started) {
      // Anything but the COPY's own answer first (an error, a notice): node-postgres reads it all.
      if (chunk[0] !== COPY_OUT_RESPONSE) {
        giveBack(chunk);
        return;
      }
      started = true;
    }
    let at = 0;
    // A message cut between two chunks is completed from this one's first bytes and read alone:
    // the rest of the chunk is read where it is, never copied.
    while (carry !== null) {
      const cut: Buffer = carry;
      const want = cut.length < 5 ? 5 : 1 + readInt4(cut, 1);
      if (cut.length >= 5 && (!ours(cut[0]) || want < 5)) {
        carry = null;
        giveBack(Buffer.concat([cut, chunk.subarray(at)]));
        return;
      }
      if (cut.length >= want) {
        // Whole: a message of 5 bytes (CopyDone) once its length arrived.
        carry = null;
        read(cut, 0, cut.length);
        continue;
      }
      if (at >= chunk.length) return;
      const take = Math.min(chunk.length - at, want - cut.length);
      carry = Buffer.concat([cut, chunk.subarray(at, at + take)]);
      at += take;
    }
    read(chunk, at, chunk.length);
  };
  stream.on("data", onData);
  // Given back before the COPY's end (the statement timed out): the start of a message cut
  // between two reads goes first, so that node-postgres reads the socket from a message's start.
  return () => giveBack(carry);
}
