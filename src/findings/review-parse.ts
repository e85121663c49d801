import { z } from "zod";
import type { PriorVerdict, ReviewOutput, ReviewVerdict, Severity } from "../domain/types.js";
import { extractJson, structuredValue } from "../util/json-extract.js";
import { findLine } from "../util/lines.js";
import { redactSecrets } from "../util/redact.js";
import {
  asText,
  isObject,
  normalizeFindingId,
  parsePriorStatus,
  parseVerdict,
  pick,
  rawFindingSchema,
} from "./lenient.js";
import { isBlocking } from "./severity.js";
import { verdictLine } from "./verdict-line.js";

export type ReviewParseResult =
  | { ok: true; output: ReviewOutput; via: "structured" | "json" | "verdict-line" }
  | { ok: false; error: string };

const priorSchema = z
  .custom<Record<string, unknown>>(isObject, { message: "a prior entry must be an object" })
  .transform((o): PriorVerdict | null => {
    const id = normalizeFindingId(pick(o, ["id", "finding", "finding_id"]));
    const status = parsePriorStatus(pick(o, ["status", "verdict", "state"]));
    if (!id || !status) return null; // an entry we cannot read counts as not given
    const note = asText(pick(o, ["note", "comment", "reason"]))?.trim();
    return note ? { id, status, note } : { id, status };
  });

const reviewSchema = z
  .custom<Record<string, unknown>>(isObject, { message: "the review must be a JSON object" })
  .transform((o) => ({
    verdict: pick(o, ["verdict", "decision", "status"]),
    summary: pick(o, ["summary", "overview"]),
    findings: pick(o, ["findings", "issues", "comments"]) ?? [],
    prior: pick(o, ["prior", "prior_findings", "previous"]) ?? [],
  }))
  .pipe(
    z.object({
      verdict: z.unknown().transform((v, ctx) => {
        const verdict = parseVerdict(v);
        if (verdict) return verdict;
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `unknown or missing verdict ${JSON.stringify(v)}`,
        });
        return z.NEVER;
      }),
      summary: z.unknown().transform((v) => asText(v) ?? ""),
      findings: z.array(rawFindingSchema),
      prior: z.array(priorSchema).transform((ps) => ps.filter((p): p is PriorVerdict => p !== null)),
    }),
  );

function validate(value: unknown): { ok: true; output: ReviewOutput } | { ok: false; error: string } {
  const r = reviewSchema.safeParse(value);
  if (r.success) return { ok: true, output: r.data };
  const issues = r.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return { ok: false, error: issues.join("; ") };
}

/**
 * SPEC §7's fallback chain: structured output → the last fenced JSON block (or the whole text as
 * JSON) → a verdict line with no findings → unparsable. Each failed step's reason is kept so the
 * final error says what was tried.
 */
export function parseReviewOutput(text: string, structured?: unknown): ReviewParseResult {
  const tried: string[] = [];
  const s = structuredValue(structured);
  if (s !== undefined && s !== null) {
    const r = validate(s);
    if (r.ok) return { ok: true, output: r.output, via: "structured" };
    tried.push(`structured output: ${r.error}`);
  }
  const json = extractJson(text);
  if (json?.ok) {
    const r = validate(json.value);
    if (r.ok) return { ok: true, output: r.output, via: "json" };
    tried.push(`JSON block: ${r.error}`);
  } else if (json) {
    tried.push(`JSON block: ${json.error}`);
  } else {
    tried.push("no JSON block");
  }
  const line = verdictLine(text);
  if (line) {
    const summary = redactSecrets(text.slice(0, line.at).trim()).slice(0, 1000);
    return {
      ok: true,
      output: { verdict: line.verdict, summary, findings: [], prior: [] },
      via: "verdict-line",
    };
  }
  tried.push("no verdict line");
  return { ok: false, error: `review output unparsable: ${tried.join("; ")}` };
}

/** SPEC §7: an approval that carries blocking findings counts as CHANGES_REQUESTED. */
export function effectiveVerdict(output: ReviewOutput, blockingSeverity: Severity): ReviewVerdict {
  const approval = output.verdict === "APPROVED" || output.verdict === "APPROVED_WITH_FOLLOWUPS";
  if (approval && output.findings.some((f) => isBlocking(f.severity, blockingSeverity))) {
    return "CHANGES_REQUESTED";
  }
  return output.verdict;
}

/**
 * SPEC §9: a reviewer's CHANGES_REQUESTED is never overridden silently. When it names no new
 * finding and keeps no earlier one open (`still_open` on an id the registry knows), the request
 * would leave nothing for the fixer and the loop would approve: it becomes one blocking finding
 * built from the reviewer's summary instead, which the fixer must answer and a later review
 * must resolve like any other.
 */
export function honourChangesRequested(
  output: ReviewOutput,
  knownIds: readonly string[],
  blockingSeverity: Severity,
  reviewer: string,
): ReviewOutput {
  if (output.verdict !== "CHANGES_REQUESTED" || output.findings.length > 0) return output;
  const known = new Set(knownIds);
  if (output.prior.some((p) => p.status === "still_open" && known.has(p.id))) return output;
  const summary = output.summary.trim();
  const firstLine = findLine(summary, (l) => l.trim() !== "")?.trim() ?? "";
  const gist =
    firstLine === "" ? "no reason given" : firstLine.length > 100 ? `${firstLine.slice(0, 99)}…` : firstLine;
  return {
    ...output,
    findings: [
      {
        severity: blockingSeverity,
        category: "review",
        title: `${reviewer} requested changes: ${gist}`,
        body:
          summary === ""
            ? `${reviewer} answered CHANGES_REQUESTED without naming a finding or giving a reason.`
            : `${reviewer} answered CHANGES_REQUESTED without naming a finding. Its summary:\n\n${summary}`,
        file: null,
        lineStart: null,
        lineEnd: null,
        suggestedFix: null,
      },
    ],
  };
}
