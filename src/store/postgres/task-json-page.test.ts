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
import { STORED_KEYS } from "./migrations/010_status_values.js";
import { TaskJsonPageReader } from "./task-json-page.js";
import { TASK_JSON_FIELDS } from "./task-json-sql.js";

interface Row {
  hint: "0" | "1";
  /** One text per stored key (migration 010). */
  values: string[];
  status: string;
  verdict: string | null;
  updatedAt: number;
  seq: number;
}

/** One tuple as PostgreSQL's binary COPY sends `status_json, status, final_verdict, updated_at, seq`. */
function tuple(r: Row): Buffer {
  return copyTuple([
    copyField(Buffer.from(r.hint + r.values.join(PIECE_SEPARATOR))),
    copyField(Buffer.from(r.status)),
    copyField(r.verdict === null ? null : Buffer.from(r.verdict)),
    copyField(int8Bytes(r.updatedAt)),
    copyField(int8Bytes(r.seq)),
  ]);
}

/** The object the CLI's taskJson writes for the row (docs/cli.md's key order). */
function expected(r: Row): string {
  const parts = r.values.map((v, i) => {
    const key = `${i === 0 ? "{" : ","}"${STORED_KEYS[i]}":${v}`;
    if (STORED_KEYS[i] === "title")
      return `${key},"status":${JSON.stringify(r.status)},"final_verdict":${JSON.stringify(r.verdict)}`;
    if (STORED_KEYS[i] === "created_at")
      return `${key},"updated_at":"${new Date(r.updatedAt).toISOString()}"`;
    return key;
  });
  return `${parts.join("")}}`;
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
  values: fc.array(piece, { minLength: STORED_KEYS.length, maxLength: STORED_KEYS.length }),
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

  it("prints null for a stored text without one value per key, and the rows around it as they are", () => {
    const good: Row = {
      hint: "0",
      values: STORED_KEYS.map((_, i) => String(i)),
      status: "queued",
      verdict: null,
      updatedAt: 0,
      seq: 1,
    };
    const splitter = new BinaryCopySplitter(new TaskJsonPageReader(4), TASK_JSON_FIELDS);
    splitter.data(Buffer.concat([COPY_HEADER, tuple(good)]));
    // A value short and a value over, as no write of migration 010 leaves them.
    splitter.data(tuple({ ...good, values: good.values.slice(1), seq: 2 }));
    splitter.data(tuple({ ...good, values: [...good.values, "1"], seq: 3 }));
    splitter.data(tuple({ ...good, seq: 4 }));
    splitter.data(COPY_TRAILER);
    const page = splitter.end();
    expect(JSON.parse(`[${Buffer.from(page.json).toString("utf8")}]`)).toEqual([
      JSON.parse(expected(good)),
      null,
      null,
      JSON.parse(expected(good)),
    ]);
    expect(page.lastSeq).toBe(4);
  });
});
