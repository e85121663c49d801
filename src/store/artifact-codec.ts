import { gunzipSync, gzipSync } from "node:zlib";
import { ARTIFACT_MAX_BYTES } from "../domain/store.js";

/** What a store writes for an artifact: the capped text, gzip-compressed unless it is small. */
export interface PackedArtifact {
  data: Buffer;
  size: number;
  truncated: boolean;
}

/**
 * Texts up to this many bytes are stored as their UTF-8 bytes: compressing a few hundred bytes
 * saves a few hundred bytes and cost about 130 µs per artifact (zlib sets up 256 KiB of state for
 * each call; 900 transcripts took 128 ms of the engine benchmark's 3.5 s, issue 10).
 */
export const RAW_ARTIFACT_MAX_BYTES = 1024;

/** The first two bytes of every gzip stream; no UTF-8 text starts with them (0x8b continues a character). */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * Caps `text` at `max` bytes — the first quarter and the last three quarters kept (a transcript's
 * end says how it finished), one line in between saying how much was cut — and compresses it
 * when it is longer than RAW_ARTIFACT_MAX_BYTES.
 */
export function packArtifact(text: string, max: number = ARTIFACT_MAX_BYTES): PackedArtifact {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return { data: compress(bytes), size: bytes.length, truncated: false };
  const head = Math.floor(max / 4);
  const tail = max - head;
  const cut = bytes.length - head - tail;
  const kept = `${bytes.subarray(0, head).toString("utf8")}\n[… ${cut} bytes cut by fixpoint: artifacts are kept up to ${max} bytes …]\n${bytes.subarray(bytes.length - tail).toString("utf8")}`;
  return { data: compress(Buffer.from(kept, "utf8")), size: bytes.length, truncated: true };
}

/**
 * gzip with a window no larger than the text needs (and a hash table to match): the same stream
 * format, which any gunzip reads, for a fraction of zlib's set-up on a text of a few KiB.
 */
function compress(bytes: Buffer): Buffer {
  if (bytes.length <= RAW_ARTIFACT_MAX_BYTES) return bytes;
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(bytes.length))));
  return gzipSync(bytes, { windowBits, memLevel: Math.max(1, windowBits - 7) });
}

/** The text of a stored artifact: gzip (any stored before raw ones existed) or UTF-8 bytes. */
export function unpackArtifact(data: Uint8Array): string {
  const gzip = data[0] === GZIP_MAGIC[0] && data[1] === GZIP_MAGIC[1];
  return gzip ? gunzipSync(data).toString("utf8") : Buffer.from(data).toString("utf8");
}
