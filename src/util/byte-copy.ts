/**
 * Copying bytes into a buffer being written, for the readers that write pages of listings
 * (store/postgres/line-bytes.ts, task-json-page.ts): most pieces are a few bytes, and a call of
 * Buffer.copy or TypedArray.set costs more than copying them one by one.
 */

/** Writes `piece` at `o` (byte by byte: the pieces are short); returns where it ends. */
export function put(out: Buffer, o: number, piece: Buffer): number {
  let at = o;
  for (let i = 0; i < piece.length; i++) out[at++] = piece[i] as number;
  return at;
}

/**
 * Writes `from[start, end)` at `o`; returns where it ends. A short text byte by byte: a
 * Buffer.copy call costs more than copying a title's bytes.
 */
export function copyIn(out: Buffer, o: number, from: Buffer, start: number, end: number): number {
  if (end - start > 64) return o + from.copy(out, o, start, end);
  let at = o;
  for (let i = start; i < end; i++) out[at++] = from[i] as number;
  return at;
}
