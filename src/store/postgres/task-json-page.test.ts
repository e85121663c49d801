import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  COPY_HEADER,
  COPY_TRAILER,
  copyField,
  copyTuple,
  feedCopy,
  int8Bytes,
} from "../../../test/helpers/binary-copy-bytes.js";
import { FINAL_VERDICTS, TASK_STATUSES } from "../../domain/types.js";
import { BinaryCopySplitter } from "./binary-copy.js";
import { PIECE_SEPARATOR } from "./migrations/009_status_json.js";
import { TaskJsonPageReader } from "./task-json-page.js";
import { TASK_JSON_FIELDS } from "./task-json-sql.js";

interface Row {
  hint: "0" | "1";
  pieces: [string, string, string];
  status: string;
  verdict: string | null;
  updatedAt: number;
  seq: number;
}

/** One tuple as PostgreSQL's binary COPY sends `status_json, status, final_verdict, updated_at, seq`. */
function tuple(r: Row): Buffer {
  return copyTuple([
    copyField(Buffer.from(r.hint + r.pieces.join(PIECE_SEPARATOR))),
    copyField(Buffer.from(r.status)),
    copyField(r.verdict === null ? null : Buffer.from(r.verdict)),
    copyField(int8Bytes(r.updatedAt)),
    copyField(int8Bytes(r.seq)),
  ]);
}

/** The object the CLI's taskJson writes for the row (docs/cli.md's key order). */
function expected(r: Row): string {
  const [head, middle, tail] = r.pieces;
  return `${head},"status":${JSON.stringify(r.status)},"final_verdict":${JSON.stringify(r.verdict)}${middle},"updated_at":"${new Date(r.updatedAt).toISOString()}"${tail}`;
}

/** Text a stored piece can hold: JSON escapes its control characters, the separator among them. */
const piece = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('"', ",", ":", "é", "😀", "\\u0001"),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
    ),
  })
  .map((s) => s.replaceAll(PIECE_SEPARATOR, "\\u0001"));
const row: fc.Arbitrary<Row> = fc.record({
  hint: fc.constantFrom("0", "1"),
  pieces: fc.tuple(piece, piece, piece),
  status: fc.oneof(fc.constantFrom(...TASK_STATUSES), fc.string({ unit: "binary", minLength: 1 })),
  verdict: fc.oneof(fc.constant(null), fc.constantFrom(...FINAL_VERDICTS), fc.string({ unit: "binary" })),
  updatedAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  seq: fc.integer({ min: 1, max: 2 ** 40 }),
});

function read(rows: Row[], messages: "row" | "all" | number[]): ReturnType<TaskJsonPageReader["end"]> {
  const splitter = new BinaryCopySplitter(new TaskJsonPageReader(rows.length), TASK_JSON_FIELDS);
  feedCopy((chunk) => splitter.data(chunk), rows.map(tuple), messages);
  return splitter.end();
}

describe("TaskJsonPageReader", () => {
  it("writes each row as taskJson would, whether a message holds a row, all of them, or any cut of them", () => {
    const known = new Set<string>([...TASK_STATUSES, ...FINAL_VERDICTS]);
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (rows, cuts) => {
        for (const messages of ["row", "all", cuts] as const) {
          const page = read(rows, messages);
          expect(Buffer.from(page.json).toString("utf8")).toBe(rows.map(expected).join(","));
          expect(page.count).toBe(rows.length);
          expect(page.lastSeq).toBe(rows.at(-1)?.seq ?? null);
          const vouched = rows.every(
            (r) => r.hint === "0" && known.has(r.status) && (r.verdict === null || known.has(r.verdict)),
          );
          expect(page.tokenFree).toBe(rows.length > 0 && vouched);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("prints null for a stored text without its two separators, and the rows around it as they are", () => {
    const good: Row = {
      hint: "0",
      pieces: ['{"id":"t-1"', ',"x":1', "}"],
      status: "queued",
      verdict: null,
      updatedAt: 0,
      seq: 1,
    };
    const splitter = new BinaryCopySplitter(new TaskJsonPageReader(3), TASK_JSON_FIELDS);
    const cut = tuple({ ...good, seq: 2 });
    // The second row's stored text with one separator only, as no write of migration 009 leaves it.
    const stored = Buffer.from(`0{"id":"t-2"${PIECE_SEPARATOR},"x":1}`);
    const broken = Buffer.concat([
      cut.subarray(0, 2),
      copyField(stored),
      cut.subarray(2 + 4 + cut.readInt32BE(2)),
    ]);
    splitter.data(Buffer.concat([COPY_HEADER, tuple(good)]));
    splitter.data(broken);
    splitter.data(tuple({ ...good, seq: 3 }));
    splitter.data(COPY_TRAILER);
    const page = splitter.end();
    expect(JSON.parse(`[${Buffer.from(page.json).toString("utf8")}]`)).toEqual([
      JSON.parse(expected(good)),
      null,
      JSON.parse(expected(good)),
    ]);
    expect(page.lastSeq).toBe(3);
  });
});
