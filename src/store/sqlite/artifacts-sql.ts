import type { ArtifactKind, StoredArtifact } from "../../domain/store.js";
import { unpackArtifact } from "../artifact-codec.js";

export const SAVE_ARTIFACT = `
INSERT INTO artifacts (task_id, kind, name, data, size, truncated, created_at)
VALUES (@taskId, @kind, @name, @data, @size, @truncated, @now)
ON CONFLICT (task_id, kind, name) DO UPDATE SET
  data = excluded.data, size = excluded.size, truncated = excluded.truncated, created_at = excluded.created_at`;

/** A task's artifacts, of `kind` and among `names` when given, by kind then name. */
export function listArtifactsSql(
  taskId: string,
  kind: ArtifactKind | undefined,
  names: readonly string[] | undefined,
): { sql: string; params: Record<string, string> } {
  const params: Record<string, string> = { taskId };
  let where = "task_id = @taskId";
  if (kind !== undefined) {
    where += " AND kind = @kind";
    params.kind = kind;
  }
  if (names !== undefined) {
    where += " AND name IN (SELECT value FROM json_each(@names))";
    params.names = JSON.stringify(names);
  }
  return { sql: `SELECT * FROM artifacts WHERE ${where} ORDER BY kind, name`, params };
}

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
