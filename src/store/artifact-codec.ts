import { gunzipSync, gzipSync } from "node:zlib";
import { ARTIFACT_MAX_BYTES } from "../domain/store.js";

/** What a store writes for an artifact: the capped text, gzip-compressed. */
export interface PackedArtifact {
  data: Buffer;
  size: number;
  truncated: boolean;
}

/**
 * Caps `text` at `max` bytes — the first quarter and the last three quarters kept (a transcript's
 * end says how it finished), one line in between saying how much was cut — and compresses it.
 */
export function packArtifact(text: string, max: number = ARTIFACT_MAX_BYTES): PackedArtifact {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return { data: gzipSync(bytes), size: bytes.length, truncated: false };
  const head = Math.floor(max / 4);
  const tail = max - head;
  const cut = bytes.length - head - tail;
  const kept = `${bytes.subarray(0, head).toString("utf8")}\n[… ${cut} bytes cut by fixpoint: artifacts are kept up to ${max} bytes …]\n${bytes.subarray(bytes.length - tail).toString("utf8")}`;
  return { data: gzipSync(Buffer.from(kept, "utf8")), size: bytes.length, truncated: true };
}

export function unpackArtifact(data: Uint8Array): string {
  return gunzipSync(data).toString("utf8");
}
