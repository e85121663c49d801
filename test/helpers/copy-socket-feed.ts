/**
 * A binary COPY's answer as the server sends it on the socket (protocol messages), and that
 * socket read by copy-socket.ts's readCopyFromSocket, for the tests of the native writers.
 */
import { PassThrough } from "node:stream";
import type { BinaryCopySplitter } from "../../src/store/postgres/binary-copy.js";
import { readCopyFromSocket } from "../../src/store/postgres/copy-socket.js";
import { COPY_HEADER, COPY_TRAILER } from "./binary-copy-bytes.js";

/** One protocol message: its type, a length that counts itself, the body. */
export function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** CopyOutResponse for `fields` binary columns. */
function copyOut(fields: number): Buffer {
  const body = Buffer.alloc(3 + 2 * fields);
  body[0] = 1;
  body.writeInt16BE(fields, 1);
  for (let i = 0; i < fields; i++) body.writeInt16BE(1, 3 + 2 * i);
  return message("H", body);
}

/** What ends the statement, for node-postgres: CopyDone, CommandComplete, ReadyForQuery. */
export const COPY_ENDING = Buffer.concat([
  message("c", Buffer.alloc(0)),
  message("C", Buffer.from("COPY 3\0")),
  message("Z", Buffer.from("I")),
]);

/** The answer as PostgreSQL sends it: the header with the first tuple, a tuple a message, the trailer alone. */
export function copyAnswer(tuples: readonly Buffer[], fields: number): Buffer {
  const data = tuples.map((t, i) => message("d", i === 0 ? Buffer.concat([COPY_HEADER, t]) : t));
  if (tuples.length === 0) data.push(message("d", COPY_HEADER));
  return Buffer.concat([copyOut(fields), ...data, message("d", COPY_TRAILER), COPY_ENDING]);
}

/**
 * Feeds `bytes`, cut at `cuts`, to a socket read by readCopyFromSocket into `splitter`; returns
 * what node-postgres' parser was handed, and the socket.
 */
export function readThroughSocket(
  bytes: Buffer,
  cuts: readonly number[],
  splitter: BinaryCopySplitter<unknown>,
) {
  const socket = new PassThrough();
  const parser: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => parser.push(Buffer.from(chunk)));
  let failure: unknown;
  const giveBack = readCopyFromSocket(
    socket,
    splitter,
    () => failure !== undefined,
    (e) => {
      failure = e;
    },
  );
  let from = 0;
  for (const to of [...new Set(cuts.map((c) => c % Math.max(1, bytes.length)))]
    .sort((a, b) => a - b)
    .concat(bytes.length)) {
    if (to <= from) continue;
    socket.emit("data", Buffer.from(bytes.subarray(from, to)));
    from = to;
  }
  giveBack();
  if (failure !== undefined) throw failure;
  return { parser: Buffer.concat(parser), socket };
}
