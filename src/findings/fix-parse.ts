import { z } from "zod";
import type { FixReport, FixReportEntry, FixReportStatus } from "../domain/types.js";
import { extractJson, structuredValue } from "../util/json-extract.js";
import { asText, isObject, normalizeFindingId, pick } from "./lenient.js";

export type FixParseResult = { ok: true; report: FixReport } | { ok: false; error: string };

const STATUS_ALIASES: Readonly<Record<string, FixReportStatus>> = {
  fixed: "fixed",
  done: "fixed",
  resolved: "fixed",
  addressed: "fixed",
  blocked: "blocked",
  deferred: "deferred",
  defer: "deferred",
  skipped: "deferred",
  postponed: "deferred",
  not_fixed: "deferred",
  wont_fix: "deferred",
  wontfix: "deferred",
};

function parseStatus(v: unknown): FixReportStatus | null {
  const key = (asText(v) ?? "")
    .trim()
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z]+/g, "_")
    .replace(/^_|_$/g, "");
  return STATUS_ALIASES[key] ?? null;
}

/**
 * An entry whose id or status we cannot read is dropped: the registry then treats that finding
 * as unreported ("no report" → deferred), which is the honest reading of an unreadable entry.
 */
const entrySchema = z.unknown().transform((v): FixReportEntry | null => {
  if (!isObject(v)) return null;
  const id = normalizeFindingId(pick(v, ["id", "finding", "finding_id"]));
  const status = parseStatus(pick(v, ["status", "outcome", "result"]));
  if (!id || !status) return null;
  const justification =
    asText(pick(v, ["justification", "summary", "note", "description", "details", "explanation"]))?.trim() ??
    "";
  const reason = asText(pick(v, ["reason", "blocked_reason", "category"]))?.trim();
  return reason ? { id, status, justification, reason } : { id, status, justification };
});

const reportSchema = z
  .unknown()
  .transform((v, ctx) => {
    if (Array.isArray(v)) return { summary: "", entries: v };
    if (isObject(v)) {
      const entries = pick(v, ["findings", "items", "report", "entries", "results"]);
      if (Array.isArray(entries)) return { summary: asText(pick(v, ["summary"])) ?? "", entries };
    }
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "expected an object with a findings array" });
    return z.NEVER;
  })
  .pipe(
    z.object({
      summary: z.string(),
      entries: z.array(entrySchema).transform((es) => es.filter((e): e is FixReportEntry => e !== null)),
    }),
  );

function validate(value: unknown): FixParseResult {
  const r = reportSchema.safeParse(value);
  if (r.success) return { ok: true, report: r.data };
  return { ok: false, error: r.error.issues[0]?.message ?? "invalid report" };
}

/** The fixer's report: structured output → last fenced JSON block (or whole text) → unparsable. */
export function parseFixReport(text: string, structured?: unknown): FixParseResult {
  const tried: string[] = [];
  const s = structuredValue(structured);
  if (s !== undefined && s !== null) {
    const r = validate(s);
    if (r.ok) return r;
    tried.push(`structured output: ${r.error}`);
  }
  const json = extractJson(text);
  if (json?.ok) {
    const r = validate(json.value);
    if (r.ok) return r;
    tried.push(`JSON block: ${r.error}`);
  } else {
    tried.push(json ? `JSON block: ${json.error}` : "no JSON block");
  }
  return { ok: false, error: `fix report unparsable: ${tried.join("; ")}` };
}
