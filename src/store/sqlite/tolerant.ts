/**
 * Tolerant readers for the JSON columns (seed 002's compatibility contract): a row written by
 * an older or newer fixpoint, or edited by hand, never crashes a reader. Unknown keys pass
 * through untouched (so a rewrite by this version keeps what a newer one stored), a known key
 * with the wrong type is dropped, a missing one is defaulted, malformed JSON reads as empty.
 */
import type {
  Budget,
  FindingSource,
  FixAttempt,
  Json,
  JsonObject,
  RunMeta,
  Severity,
  StoredReviewIssue,
  TaskMeta,
} from "../../domain/types.js";
import { SEVERITIES } from "../../domain/types.js";

/** Parsed JSON, or undefined when the text is not JSON at all. */
export function parseJson(text: unknown): Json | undefined {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Most rows hold "{}"; skipping JSON.parse for it keeps listing 10,000 tasks cheap. */
function parseObject(text: unknown): JsonObject {
  if (text === "{}") return {};
  const v = parseJson(text);
  return isJsonObject(v) ? v : {};
}

function parseArray(text: unknown): unknown[] {
  if (text === "[]") return [];
  const v = parseJson(text);
  return Array.isArray(v) ? v : [];
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Copies `obj` minus `known` keys; the caller then adds the known keys it validated. */
function unknownKeys(obj: JsonObject, known: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (!known.includes(k)) out[k] = v;
  return out;
}

const TASK_META_KEYS = [
  "prNumber",
  "reworkCycle",
  "reviewArtifact",
  "origin",
  "findingIds",
  "noReview",
] as const;

export function parseTaskMeta(text: unknown): TaskMeta {
  const obj = parseObject(text);
  const meta: TaskMeta & JsonObject = unknownKeys(obj, TASK_META_KEYS);
  const prNumber = num(obj.prNumber);
  if (prNumber !== undefined) meta.prNumber = prNumber;
  const reworkCycle = num(obj.reworkCycle);
  if (reworkCycle !== undefined) meta.reworkCycle = reworkCycle;
  const reviewArtifact = str(obj.reviewArtifact);
  if (reviewArtifact !== undefined) meta.reviewArtifact = reviewArtifact;
  const origin = str(obj.origin);
  if (origin !== undefined) meta.origin = origin;
  if (Array.isArray(obj.findingIds)) meta.findingIds = obj.findingIds.filter((x) => typeof x === "string");
  if (typeof obj.noReview === "boolean") meta.noReview = obj.noReview;
  return meta;
}

export function parseBudget(text: unknown): Budget {
  const obj = parseObject(text);
  const budget: Budget = {};
  const usd = num(obj.usd);
  if (usd !== undefined) budget.usd = usd;
  const tokens = num(obj.tokens);
  if (tokens !== undefined) budget.tokens = tokens;
  return budget;
}

export function parseAgents(text: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [role, agent] of Object.entries(parseObject(text)))
    if (typeof agent === "string") out[role] = agent;
  return out;
}

function severity(v: unknown, fallback: Severity): Severity {
  return SEVERITIES.find((s) => s === v) ?? fallback;
}

/** An issue without an id cannot be referred to on resume, so it is dropped; the rest defaults. */
function parseReviewIssue(v: unknown): StoredReviewIssue | null {
  if (!isJsonObject(v) || typeof v.id !== "string") return null;
  return {
    id: v.id,
    file: str(v.file) ?? "",
    lineStart: num(v.lineStart) ?? 0,
    lineEnd: num(v.lineEnd) ?? num(v.lineStart) ?? 0,
    // Only blocking issues are stored, so an unreadable severity is taken as blocking.
    severity: severity(v.severity, "P1"),
    title: str(v.title) ?? "",
    body: str(v.body) ?? "",
    reviewer: str(v.reviewer) ?? "",
  };
}

export function parseRunMeta(text: unknown): RunMeta {
  const obj = parseObject(text);
  const meta: RunMeta & JsonObject = unknownKeys(obj, ["lastReviewIssues", "workerId"]);
  if (Array.isArray(obj.lastReviewIssues)) {
    meta.lastReviewIssues = obj.lastReviewIssues
      .map(parseReviewIssue)
      .filter((x): x is StoredReviewIssue => x !== null);
  }
  const workerId = str(obj.workerId);
  if (workerId !== undefined) meta.workerId = workerId;
  return meta;
}

export function parseSources(text: unknown): FindingSource[] {
  const out: FindingSource[] = [];
  for (const v of parseArray(text)) {
    if (!isJsonObject(v) || typeof v.source !== "string") continue;
    const s: FindingSource = { source: v.source, cycle: num(v.cycle) ?? 0 };
    const author = str(v.author);
    if (author !== undefined) s.author = author;
    out.push(s);
  }
  return out;
}

const ATTEMPT_STATUSES = ["fixed", "blocked", "deferred", "rejected", "no_report"] as const;

export function parseAttempts(text: unknown): FixAttempt[] {
  const out: FixAttempt[] = [];
  for (const v of parseArray(text)) {
    if (!isJsonObject(v)) continue;
    const a: FixAttempt = {
      cycle: num(v.cycle) ?? 0,
      status: ATTEMPT_STATUSES.find((s) => s === v.status) ?? "no_report",
      justification: str(v.justification) ?? "",
      commitSha: str(v.commitSha) ?? null,
      at: num(v.at) ?? 0,
    };
    const rejection = str(v.rejection);
    if (rejection !== undefined) a.rejection = rejection;
    out.push(a);
  }
  return out;
}

export function parseEventData(text: unknown): JsonObject {
  return parseObject(text);
}

/**
 * Parsed JSON when the text is JSON, else the raw text. Checkpoints use it so the engine can tell
 * a person a checkpoint is corrupted instead of silently starting over.
 */
export function parseJsonOrText(text: unknown): Json {
  const v = parseJson(text);
  if (v !== undefined) return v;
  return typeof text === "string" ? text : null;
}
