const DAY_MS = 86_400_000;
/** `"00"` … `"99"` as two ASCII bytes each. */
const TWO_DIGITS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0")).join(""));

/**
 * Writes `new Date(ms).toISOString()` as ASCII bytes, for a reader that prints thousands of times
 * into a buffer: the day's `YYYY-MM-DDT` is kept from the last time written, and the time of day
 * is written digit by digit, where a Date and its string cost about 0.6 µs each. Years outside
 * 0000–9999 are written by toISOString itself.
 */
export class IsoTimeBytes {
  private dayStart = Number.NaN;
  private readonly day = Buffer.alloc(11);

  /** Writes the text at `at` in `out` (room for 27 bytes); returns how many bytes it wrote. */
  write(out: Buffer, at: number, ms: number): number {
    if (!Number.isInteger(ms)) return this.whole(out, at, ms);
    if (!(ms >= this.dayStart && ms < this.dayStart + DAY_MS)) {
      const start = Math.floor(ms / DAY_MS) * DAY_MS;
      const text = new Date(start).toISOString();
      if (text.length !== 24) return this.whole(out, at, ms);
      this.day.write(text.slice(0, 11), 0, "latin1");
      this.dayStart = start;
    }
    this.day.copy(out, at);
    let t = ms - this.dayStart;
    const millis = t % 1000;
    t = (t - millis) / 1000;
    const seconds = t % 60;
    t = (t - seconds) / 60;
    const minutes = t % 60;
    const hours = (t - minutes) / 60;
    let o = at + 11;
    o = pair(out, o, hours);
    out[o++] = 0x3a;
    o = pair(out, o, minutes);
    out[o++] = 0x3a;
    o = pair(out, o, seconds);
    out[o++] = 0x2e;
    out[o++] = 0x30 + Math.floor(millis / 100);
    o = pair(out, o, millis % 100);
    out[o++] = 0x5a;
    return o - at;
  }

  private whole(out: Buffer, at: number, ms: number): number {
    return out.write(new Date(ms).toISOString(), at, "latin1");
  }
}

function pair(out: Buffer, at: number, n: number): number {
  out[at] = TWO_DIGITS[2 * n] as number;
  out[at + 1] = TWO_DIGITS[2 * n + 1] as number;
  return at + 2;
}
