import { z } from "zod";
import type { PriorStatus, RawFinding, ReviewVerdict } from "../domain/types.js";
import { firstLineOf } from "../util/lines.js";
import { parseSeverity } from "./severity.js";

/**
 * Lenient readers for what agents write. Agents rename keys (`description` for `body`,
 * `file_path` for `file`), quote numbers and invent spellings of enums; we accept the common
 * variants and default what is missing, and reject only what cannot mean anything.
 */

type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first present, non-null value among alias keys. */
export function pick(o: Obj, keys: readonly string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

export function asText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

/** 87, "87", "L87", "87-92" → 87; anything else → null. */
export function asLine(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) && v >= 0 ? Math.trunc(v) : null;
  if (typeof v !== "string") return null;
  const m = /^\s*L?(\d+)/i.exec(v);
  return m?.[1] ? Number.parseInt(m[1], 10) : null;
}

function normWord(v: unknown): string {
  return (asText(v) ?? "")
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_|_$/g, "");
}

const VERDICT_ALIASES: Readonly<Record<string, ReviewVerdict>> = {
  APPROVED: "APPROVED",
  APPROVE: "APPROVED",
  LGTM: "APPROVED",
  APPROVED_WITH_FOLLOWUPS: "APPROVED_WITH_FOLLOWUPS",
  APPROVED_WITH_FOLLOW_UPS: "APPROVED_WITH_FOLLOWUPS",
  APPROVE_WITH_FOLLOWUPS: "APPROVED_WITH_FOLLOWUPS",
  CHANGES_REQUESTED: "CHANGES_REQUESTED",
  REQUEST_CHANGES: "CHANGES_REQUESTED",
  REQUESTED_CHANGES: "CHANGES_REQUESTED",
  CHANGES_REQUIRED: "CHANGES_REQUESTED",
  NEEDS_DISCUSSION: "NEEDS_DISCUSSION",
  NEEDS_HUMAN: "NEEDS_DISCUSSION",
};

export function parseVerdict(v: unknown): ReviewVerdict | null {
  return VERDICT_ALIASES[normWord(v)] ?? null;
}

const PRIOR_ALIASES: Readonly<Record<string, PriorStatus>> = {
  RESOLVED: "resolved",
  FIXED: "resolved",
  DONE: "resolved",
  STILL_OPEN: "still_open",
  OPEN: "still_open",
  NOT_FIXED: "still_open",
  UNRESOLVED: "still_open",
  NOT_APPLICABLE: "not_applicable",
  N_A: "not_applicable",
  NA: "not_applicable",
  INVALID: "not_applicable",
};

export function parsePriorStatus(v: unknown): PriorStatus | null {
  return PRIOR_ALIASES[normWord(v)] ?? null;
}

/** "F-3", "f3", "3", " F-03 " → "F-3"; other shapes are kept trimmed (and then not found). */
export function normalizeFindingId(v: unknown): string {
  const s = (asText(v) ?? "").trim();
  // Not `0*(\d+)`: on a long run of zeros that then fails, it tried every split of the run.
  const digits = /^(?:F-?)?(\d+)$/i.exec(s)?.[1];
  return digits ? `F-${digits.replace(/^0+(?=\d)/, "")}` : s;
}

/** One finding as a reviewer wrote it. Fails only when it is not an object or says nothing. */
export const rawFindingSchema: z.ZodType<RawFinding, z.ZodTypeDef, unknown> = z
  .custom<Obj>(isObject, { message: "a finding must be an object" })
  .transform((o, ctx): RawFinding => {
    const body = asText(pick(o, ["body", "description", "details", "message", "explanation"])) ?? "";
    const title = (asText(pick(o, ["title", "summary", "name"])) ?? firstLineOf(body)).trim();
    if (title === "") {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: "a finding needs a title or a body" });
      return z.NEVER;
    }
    const lineStart = asLine(pick(o, ["line_start", "lineStart", "start_line", "line", "lines"]));
    let lineEnd = asLine(pick(o, ["line_end", "lineEnd", "end_line"])) ?? lineStart;
    if (lineStart !== null && lineEnd !== null && lineEnd < lineStart) lineEnd = lineStart;
    const file = asText(pick(o, ["file", "file_path", "filePath", "path"]))?.trim();
    const category = asText(pick(o, ["category", "type", "kind"]))?.trim();
    const fix = asText(pick(o, ["suggested_fix", "suggestedFix", "suggestion", "fix"]))?.trim();
    return {
      // Unknown spellings land in the middle: neither silently blocking nor silently ignored.
      severity: parseSeverity(pick(o, ["severity", "priority", "level"])) ?? "P2",
      category: category || "general",
      title,
      body,
      file: file || null,
      lineStart,
      lineEnd: lineStart === null ? null : lineEnd,
      suggestedFix: fix || null,
    };
  });
