import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryCopySplitter, readInt8, type TupleReader } from "./binary-copy.js";

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/** A binary COPY's bytes as PostgreSQL writes them: header (with `extension` bytes), tuples, trailer. */
function copyBytes(rows: readonly (readonly (Buffer | null)[])[], extension = Buffer.alloc(0)): Buffer {
  const parts: Buffer[] = [SIGNATURE, int32(0), int32(extension.length), extension];
  for (const row of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(row.length);
    parts.push(count);
    for (const field of row)
      parts.push(field === null ? int32(-1) : Buffer.concat([int32(field.length), field]));
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

/** Copies each tuple's fields out of the call (the buffer is only lent). */
class Collect implements TupleReader<(Buffer | null)[][]> {
  readonly rows: (Buffer | null)[][] = [];
  tuple(bytes: Buffer, starts: Int32Array, lengths: Int32Array): void {
    const row: (Buffer | null)[] = [];
    for (let i = 0; i < starts.length; i++) {
      const length = lengths[i] as number;
      const start = starts[i] as number;
      row.push(length < 0 ? null : Buffer.from(bytes.subarray(start, start + length)));
    }
    this.rows.push(row);
  }
  end(): (Buffer | null)[][] {
    return this.rows;
  }
}

/** `bytes` cut at `cuts` (positions, any order), each piece in a buffer of its own that is overwritten after the call. */
function feed(splitter: BinaryCopySplitter<unknown>, bytes: Buffer, cuts: number[]): void {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to <= from) continue;
    const lent = Buffer.from(bytes.subarray(from, to));
    splitter.data(lent);
    lent.fill(0x5a);
    from = to;
  }
}

const field = fc.option(
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  { nil: null },
);

describe("BinaryCopySplitter", () => {
  it("hands over every tuple whole, however the messages cut them", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 6 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.array(fc.array(field, { minLength: n, maxLength: n }), { maxLength: 12 }),
              fc.uint8Array({ maxLength: 6 }),
              fc.array(fc.nat(), { maxLength: 30 }),
            ),
          ),
        ([n, rows, extension, cuts]) => {
          const splitter = new BinaryCopySplitter(new Collect(), n);
          feed(splitter, copyBytes(rows, Buffer.from(extension)), cuts);
          expect(splitter.end()).toEqual(rows);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("says what is wrong with bytes that are not a binary COPY of the columns asked for", () => {
    expect(() => new BinaryCopySplitter(new Collect(), 1).data(Buffer.from("1\tfoo\n".repeat(4)))).toThrow(
      /not a binary COPY/,
    );
    expect(() => new BinaryCopySplitter(new Collect(), 2).data(copyBytes([[Buffer.from("a")]]))).toThrow(
      /1 fields where 2 were asked for/,
    );
    const cut = new BinaryCopySplitter(new Collect(), 1);
    const whole = copyBytes([[Buffer.from("a")]]);
    cut.data(whole.subarray(0, whole.length - 2));
    expect(() => cut.end()).toThrow(/ended before its trailer/);
    expect(() =>
      new BinaryCopySplitter(new Collect(), 1).data(Buffer.concat([whole, whole.subarray(19)])),
    ).toThrow(/after its trailer/);
  });
});

describe("readInt8", () => {
  it("reads any bigint a number holds exactly", () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        const b = Buffer.alloc(8);
        b.writeBigInt64BE(BigInt(n));
        expect(readInt8(b, 0)).toBe(n);
      }),
    );
  });
});
