import type { ArtifactKind, StoredArtifact } from "../../domain/store.js";
import { unpackArtifact } from "../artifact-codec.js";

export const SAVE_ARTIFACT = `
INSERT INTO artifacts (task_id, kind, name, data, size, truncated, created_at)
VALUES (@taskId, @kind, @name, @data, @size, @truncated, @now)
ON CONFLICT (task_id, kind, name) DO UPDATE SET
  data = excluded.data, size = excluded.size, truncated = excluded.truncated, created_at = excluded.created_at`;

/** Both stores' row reader (PostgreSQL returns the same column names; BYTEA reads as a Buffer). */
export function toArtifact(r: Record<string, unknown>): StoredArtifact {
  const data = r.data;
  return {
    taskId: String(r.task_id),
    kind: String(r.kind) as ArtifactKind,
    name: String(r.name),
    text: data instanceof Uint8Array ? unpackArtifact(data) : "",
    size: Number(r.size),
    truncated: r.truncated === true || r.truncated === 1,
    createdAt: Number(r.created_at),
  };
}
