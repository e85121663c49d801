/**
 * PostgreSQL's binary COPY format (`COPY … TO STDOUT (FORMAT binary)`), read as it arrives: the
 * header, then tuples (a 16-bit field count, then each field as a 32-bit length, -1 for NULL, and
 * its bytes), then a trailer (a field count of -1). Each field is the column type's binary send
 * form: a text column's bytes as UTF-8, a bigint as 8 bytes big-endian. A text read this way is
 * never turned into a JavaScript string, which is what a 40 MB listing costs through
 * node-postgres' rows (each value decoded, then encoded again to be written).
 */

/** What a COPY's tuples are handed to, one at a time. */
export interface TupleReader<T> {
  /**
   * One tuple: field `i` is `bytes[starts[i] .. starts[i] + lengths[i])`, or NULL when
   * `lengths[i]` is -1. The arrays and the buffer are only valid during the call.
   */
  tuple(bytes: Buffer, starts: Int32Array, lengths: Int32Array): void;
  end(): T;
  /**
   * Reads whole protocol messages at `input[at, end)` itself, as many CopyData messages of one
   * tuple each as it can in a row, and returns where it stopped (`at` for none): a reader that
   * writes rows natively (TaskJsonPageReader), handed the socket's bytes (copy-socket.ts). Absent,
   * or where it cannot, every tuple comes through `tuple`.
   */
  messages?: ((input: Buffer, at: number, end: number) => number) | null;
}

/** PGCOPY\n\377\r\n\0 */
const SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);
/** The signature, the flags and the header extension's length. */
const HEADER = SIGNATURE.length + 8;

/**
 * Splits the CopyData messages of one binary COPY into tuples for a TupleReader. PostgreSQL sends
 * a tuple per message (the header with the first), but the protocol does not promise message
 * boundaries: a tuple cut between messages is kept until it is whole.
 */
export class BinaryCopySplitter<T> {
  private readonly starts: Int32Array;
  private readonly lengths: Int32Array;
  private headerRead = false;
  private ended = false;
  /** The start of a tuple (or of the header) that has not all arrived. */
  private carry: Buffer | null = null;

  constructor(
    private readonly reader: TupleReader<T>,
    private readonly fields: number,
  ) {
    this.starts = new Int32Array(fields);
    this.lengths = new Int32Array(fields);
  }

  /** One CopyData message's bytes, only valid during the call. */
  data(chunk: Buffer): void {
    let bytes = chunk;
    if (this.carry !== null) {
      bytes = Buffer.concat([this.carry, chunk]);
      this.carry = null;
    }
    let at = 0;
    if (!this.headerRead) {
      at = this.header(bytes);
      if (at < 0) {
        this.carry = Buffer.from(bytes);
        return;
      }
      this.headerRead = true;
    }
    while (at < bytes.length) {
      if (this.ended) throw new Error("the COPY sent data after its trailer");
      const next = this.tuple(bytes, at);
      if (next < 0) {
        this.carry = Buffer.from(bytes.subarray(at));
        return;
      }
      at = next;
    }
  }

  /** Whether the reader reads whole messages itself (TupleReader.messages). */
  get readsMessages(): boolean {
    return typeof this.reader.messages === "function";
  }

  /**
   * Whole CopyData messages at `input[at, end)`, each one tuple, handed to the reader's own
   * message reader while no header or cut tuple is pending; returns where it stopped (`at` when
   * it read none). The messages it leaves are read the usual way, through `data`.
   */
  messages(input: Buffer, at: number, end: number): number {
    if (!this.headerRead || this.carry !== null || this.ended || !this.reader.messages) return at;
    return this.reader.messages(input, at, end);
  }

  end(): T {
    if (!this.ended) throw new Error("the COPY ended before its trailer");
    return this.reader.end();
  }

  /** Where the tuples start, or -1 when the header has not all arrived. */
  private header(bytes: Buffer): number {
    if (bytes.length < HEADER) return -1;
    if (!bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE))
      throw new Error("not a binary COPY: the signature is missing");
    const extension = bytes.readUInt32BE(SIGNATURE.length + 4);
    return bytes.length < HEADER + extension ? -1 : HEADER + extension;
  }

  /** Reads the tuple (or the trailer) at `at`: where the next one starts, or -1 when it is cut. */
  private tuple(bytes: Buffer, at: number): number {
    if (at + 2 > bytes.length) return -1;
    const count = (((bytes[at] as number) << 24) | ((bytes[at + 1] as number) << 16)) >> 16;
    if (count === -1) {
      this.ended = true;
      return at + 2;
    }
    if (count !== this.fields)
      throw new Error(`a COPY tuple of ${count} fields where ${this.fields} were asked for`);
    let o = at + 2;
    for (let i = 0; i < count; i++) {
      if (o + 4 > bytes.length) return -1;
      const length = readInt4(bytes, o);
      o += 4;
      this.starts[i] = o;
      this.lengths[i] = length;
      if (length > 0) o += length;
      if (o > bytes.length) return -1;
    }
    this.reader.tuple(bytes, this.starts, this.lengths);
    return o;
  }
}

/**
 * The integer at `at` (4 bytes, big-endian, signed). In bytes, not Buffer.readInt32BE: that one,
 * with its checks, was not inlined into the readers and cost a call per field of 100,000 rows.
 */
export function readInt4(bytes: Buffer, at: number): number {
  return (
    ((bytes[at] as number) << 24) |
    ((bytes[at + 1] as number) << 16) |
    ((bytes[at + 2] as number) << 8) |
    (bytes[at + 3] as number)
  );
}

/** The bigint at `at` (8 bytes, big-endian) as a number: exact up to 2^53. */
export function readInt8(bytes: Buffer, at: number): number {
  return readInt4(bytes, at) * 0x1_0000_0000 + (readInt4(bytes, at + 4) >>> 0);
}
