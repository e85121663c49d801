import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  COPY_HEADER,
  COPY_TRAILER,
  copyField,
  copyTuple,
  int8Bytes,
} from "../../../test/helpers/binary-copy-bytes.js";
import {
  COPY_ENDING,
  copyAnswer,
  readThroughSocket as feedSocket,
  message,
} from "../../../test/helpers/copy-socket-feed.js";
import { FINAL_VERDICTS, TASK_STATUSES } from "../../domain/types.js";
import { BinaryCopySplitter } from "./binary-copy.js";
import { readCopyFromSocket } from "./copy-socket.js";
import { PIECE_SEPARATOR } from "./migrations/009_status_json.js";
import { STORED_KEYS } from "./migrations/010_status_values.js";
import { type JsonRows, nativeJsonRows } from "./native-json-rows.js";
import { TaskJsonPageReader } from "./task-json-page.js";
import { TASK_JSON_FIELDS } from "./task-json-sql.js";

// `npm install` builds the writer on Linux (scripts/build-native.mjs); a missing one fails here
// rather than letting every listing quietly run in JavaScript.
const native = nativeJsonRows();

interface Row {
  hint: string;
  text: string;
  status: string | null;
  verdict: string | null;
  updatedAt: number | null;
  seq: number;
}

function tuple(r: Row): Buffer {
  return copyTuple([
    copyField(Buffer.from(r.hint + r.text)),
    copyField(r.status === null ? null : Buffer.from(r.status)),
    copyField(r.verdict === null ? null : Buffer.from(r.verdict)),
    copyField(r.updatedAt === null ? null : int8Bytes(r.updatedAt)),
    copyField(int8Bytes(r.seq)),
  ]);
}

/** The answer as PostgreSQL sends it. */
const response = (rows: Row[]): Buffer => copyAnswer(rows.map(tuple), TASK_JSON_FIELDS);
const ENDING = COPY_ENDING;

/** The page the JavaScript reader writes from the same rows. */
function reference(rows: Row[]) {
  const splitter = new BinaryCopySplitter(new TaskJsonPageReader(rows.length, null), TASK_JSON_FIELDS);
  for (const [i, r] of rows.entries())
    splitter.data(i === 0 ? Buffer.concat([COPY_HEADER, tuple(r)]) : tuple(r));
  if (rows.length === 0) splitter.data(COPY_HEADER);
  splitter.data(COPY_TRAILER);
  return splitter.end();
}

/** The answer cut at `cuts`, read from a socket by a reader writing with `writer`. */
function readThroughSocket(bytes: Buffer, cuts: number[], limit: number, writer = native) {
  const splitter = new BinaryCopySplitter(new TaskJsonPageReader(limit, writer), TASK_JSON_FIELDS);
  return { splitter, ...feedSocket(bytes, cuts, splitter) };
}

const piece = fc
  .string({ unit: fc.oneof(fc.constantFrom('"', ",", "é", "😀", "\\u0001"), fc.string({ maxLength: 1 })) })
  .map((s) => s.replaceAll(PIECE_SEPARATOR, "\\u0001"));
const values = (n: number) =>
  fc.array(piece, { minLength: n, maxLength: n }).map((p) => p.join(PIECE_SEPARATOR));
const rowArb: fc.Arbitrary<Row> = fc.record({
  hint: fc.constantFrom("0", "0", "0", "1"),
  // Usually one value per key, as migration 010 stores them; sometimes one short or one over.
  text: fc.oneof(
    values(STORED_KEYS.length),
    values(STORED_KEYS.length),
    values(STORED_KEYS.length - 1),
    values(STORED_KEYS.length + 1),
  ),
  status: fc.oneof(
    fc.constantFrom(...TASK_STATUSES),
    fc.constantFrom(...TASK_STATUSES),
    fc.constant("Queued"),
    fc.constant(null),
  ),
  verdict: fc.oneof(fc.constant(null), fc.constantFrom(...FINAL_VERDICTS), fc.constant('say "no"')),
  updatedAt: fc.oneof(
    fc.integer({ min: 0, max: 253_402_300_799_999 }),
    fc.integer({ min: 0, max: 4_102_444_800_000 }),
    fc.constantFrom(
      0,
      86_399_999,
      951_782_400_000,
      253_402_300_799_999,
      253_402_300_800_000,
      -1,
      -62_198_755_200_000,
    ),
    fc.constant(null),
  ),
  seq: fc.integer({ min: 1, max: 2 ** 40 }),
});

describe("a binary COPY read from the socket, its rows written natively", () => {
  it("is built on Linux", () => {
    if (process.platform !== "linux") return;
    expect(
      native,
      "build/Release/fixpoint_copy_json.node is missing: run `npm run build:native`",
    ).not.toBeNull();
  });

  it("writes the same page as the JavaScript reader, however the socket cuts the messages, and hands node-postgres the rest", () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 25 }),
        fc.integer({ min: 1, max: 40 }),
        (rows, cuts, limit) => {
          const want = reference(rows);
          const { splitter, parser } = readThroughSocket(response(rows), cuts, limit);
          const page = splitter.end();
          expect(Buffer.from(page.json).toString("utf8")).toBe(Buffer.from(want.json).toString("utf8"));
          expect(page.count).toBe(want.count);
          expect(page.lastSeq).toBe(want.lastSeq);
          expect(page.tokenFree).toBe(want.tokenFree);
          // CommandComplete and ReadyForQuery, byte for byte, and nothing of the COPY's own.
          expect(parser.equals(ENDING.subarray(5))).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("writes a thousand rows cut by the socket into 64 KiB reads, as the JavaScript reader does", () => {
    const rows: Row[] = Array.from({ length: 1000 }, (_, i) => ({
      hint: "0",
      text: STORED_KEYS.map((key) =>
        key === "title" ? `"task ${"x".repeat(i % 300)}"` : `"${key} ${i}"`,
      ).join(PIECE_SEPARATOR),
      status: TASK_STATUSES[i % TASK_STATUSES.length] as string,
      verdict: i % 3 === 0 ? null : (FINAL_VERDICTS[i % FINAL_VERDICTS.length] as string),
      updatedAt: 1_764_000_000_000 + i * 3_600_123,
      seq: i + 1,
    }));
    const bytes = response(rows);
    const cuts = Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) => (i + 1) * 65_536);
    let natively = 0;
    const counting: JsonRows | null =
      native === null
        ? null
        : (input, at, end, out, outAt, count) => {
            const r = native(input, at, end, out, outAt, count);
            natively += r.count - count;
            return r;
          };
    const page = readThroughSocket(bytes, cuts, 1000, counting).splitter.end();
    // All but the first (it comes with the header) and those cut between two reads.
    expect(natively).toBeGreaterThan(990 - cuts.length);
    const want = reference(rows);
    expect(Buffer.from(page.json).equals(Buffer.from(want.json))).toBe(true);
    expect(JSON.parse(`[${Buffer.from(page.json).toString("utf8")}]`)).toHaveLength(1000);
  });

  it("given back before the COPY's end (a timeout), hands node-postgres the message cut between two reads from its start", () => {
    const rows: Row[] = [1, 2].map((seq) => ({
      hint: "0",
      text: STORED_KEYS.map((k) => `"${k}"`).join(PIECE_SEPARATOR),
      status: "queued",
      verdict: null,
      updatedAt: 0,
      seq,
    }));
    const bytes = response(rows);
    // The second row's message, cut in its middle.
    const second = bytes.indexOf(message("d", tuple(rows[1] as Row)));
    const cutAt = second + 20;
    const socket = new PassThrough();
    const parser: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => parser.push(Buffer.from(chunk)));
    const splitter = new BinaryCopySplitter(new TaskJsonPageReader(2), TASK_JSON_FIELDS);
    const giveBack = readCopyFromSocket(
      socket,
      splitter,
      () => false,
      (e) => {
        throw e;
      },
    );
    socket.emit("data", bytes.subarray(0, cutAt));
    giveBack();
    socket.emit("data", bytes.subarray(cutAt));
    expect(Buffer.concat(parser).equals(bytes.subarray(second))).toBe(true);
  });

  it("gives node-postgres every byte when the answer is not the COPY's (an error first)", () => {
    const error = message("E", Buffer.from("SERROR\0Mno such table\0\0"));
    const ready = message("Z", Buffer.from("I"));
    const { splitter, parser, socket } = readThroughSocket(Buffer.concat([error, ready]), [3], 10);
    expect(parser.equals(Buffer.concat([error, ready]))).toBe(true);
    expect(() => splitter.end()).toThrow(/before its trailer/);
    // node-postgres' own listener is back on the socket, alone.
    expect(socket.listenerCount("data")).toBe(1);
  });
});
