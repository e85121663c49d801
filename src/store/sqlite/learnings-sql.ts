import type { Learning, LearningOrigin, LearningSource, NewLearning } from "../../domain/types.js";
import { LEARNING_KINDS, SEVERITIES } from "../../domain/types.js";
import type { Row } from "./rows.js";
import { isJsonObject, parseJson } from "./tolerant.js";

/** `L-3` or `3` → 3; null for anything else (no such learning). */
export function learningSeq(idOrNumber: string): number | null {
  const m = /^(?:L-)?([1-9][0-9]{0,14})$/i.exec(idOrNumber.trim());
  return m?.[1] ? Number(m[1]) : null;
}

/** The JSON columns and plain values of a new learning, by column name. */
export function learningValues(l: NewLearning) {
  return {
    repo: l.repo,
    text: l.text,
    scope: l.scope,
    source: JSON.stringify(l.source),
    origin: l.origin === null ? null : JSON.stringify(l.origin),
    createdAt: l.createdAt,
    createdBy: l.createdBy,
  };
}

export const INSERT_LEARNING = `
INSERT INTO learnings (repo, text, scope, source, origin, created_at, created_by)
VALUES (@repo, @text, @scope, @source, @origin, @createdAt, @createdBy) RETURNING *`;

export const LEARNING_HIT =
  "UPDATE learnings SET hits = hits + 1, last_hit_at = @now WHERE seq = @seq AND removed_at IS NULL";

/** A learnings row (either dialect) as the domain type; malformed JSON reads as defaults. */
export function toLearning(r: Row): Learning {
  return {
    id: `L-${Number(r.seq)}`,
    repo: String(r.repo),
    text: String(r.text),
    scope: typeof r.scope === "string" ? r.scope : null,
    source: parseSource(r.source),
    origin: parseOrigin(r.origin),
    createdAt: Number(r.created_at),
    createdBy: String(r.created_by),
    hits: Number(r.hits ?? 0),
    lastHitAt: r.last_hit_at === null || r.last_hit_at === undefined ? null : Number(r.last_hit_at),
    removedAt: r.removed_at === null || r.removed_at === undefined ? null : Number(r.removed_at),
  };
}

function parseSource(text: unknown): LearningSource {
  const v = parseJson(text);
  if (!isJsonObject(v)) return { kind: "person" };
  const kind = LEARNING_KINDS.find((k) => k === v.kind) ?? "person";
  const out: LearningSource = { kind };
  if (typeof v.taskId === "string") out.taskId = v.taskId;
  if (typeof v.findingId === "string") out.findingId = v.findingId;
  if (typeof v.author === "string") out.author = v.author;
  return out;
}

function parseOrigin(text: unknown): LearningOrigin | null {
  const v = parseJson(text);
  if (!isJsonObject(v) || typeof v.title !== "string") return null;
  const line = (x: unknown) => (typeof x === "number" && Number.isInteger(x) ? x : null);
  return {
    file: typeof v.file === "string" ? v.file : null,
    lineStart: line(v.lineStart),
    lineEnd: line(v.lineEnd),
    title: v.title,
    severity: SEVERITIES.find((s) => s === v.severity) ?? "P2",
  };
}
