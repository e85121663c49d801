import { extractJson, structuredValue } from "../util/json-extract.js";
import { asText, isObject, normalizeFindingId, pick } from "./lenient.js";

/** A verifier's judgement of one finding: real (with evidence) or not a bug (with evidence). */
export interface VerifyVerdict {
  id: string;
  verdict: "confirmed" | "refuted";
  evidence: string;
}

export const VERIFY_OUTPUT_SCHEMA = {
  type: "object",
  required: ["verdicts"],
  properties: {
    verdicts: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "verdict", "evidence"],
        properties: {
          id: { type: "string" },
          verdict: { type: "string", enum: ["confirmed", "refuted"] },
          evidence: { type: "string" },
        },
      },
    },
  },
} as const;

const CONFIRMED = new Set(["confirmed", "confirm", "real", "valid", "true_positive", "bug"]);
const REFUTED = new Set(["refuted", "refute", "false_positive", "not_a_bug", "invalid", "wont_fix"]);

/**
 * `{"verdicts": [{"id": "F-3", "verdict": "confirmed"|"refuted", "evidence": "…"}]}`, read
 * leniently (a fenced block or the whole text; common synonyms). A refutation without evidence
 * is not accepted: it is dropped, so the finding stays unverified and goes to the fixer.
 */
export function parseVerifyOutput(
  text: string,
  structured?: unknown,
): { ok: true; verdicts: VerifyVerdict[] } | { ok: false; error: string } {
  const fromStructured = structuredValue(structured);
  const candidate =
    fromStructured !== undefined && fromStructured !== null
      ? { ok: true as const, value: fromStructured }
      : extractJson(text);
  if (candidate === null) return { ok: false, error: "no JSON object in the reply" };
  if (!candidate.ok) return { ok: false, error: candidate.error };
  const root = candidate.value;
  const list = Array.isArray(root)
    ? root
    : isObject(root)
      ? pick(root, ["verdicts", "findings", "results"])
      : undefined;
  if (!Array.isArray(list)) return { ok: false, error: "expected an object with a `verdicts` array" };
  const verdicts: VerifyVerdict[] = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    const id = normalizeFindingId(pick(item, ["id", "finding", "finding_id"]));
    const word = asText(pick(item, ["verdict", "status", "result"]))
      ?.trim()
      .toLowerCase()
      .replace(/[\s-]+/g, "_");
    const evidence = asText(pick(item, ["evidence", "reason", "justification"]))?.trim() ?? "";
    if (!id || word === undefined) continue;
    if (CONFIRMED.has(word)) verdicts.push({ id, verdict: "confirmed", evidence });
    else if (REFUTED.has(word) && evidence !== "") verdicts.push({ id, verdict: "refuted", evidence });
  }
  return { ok: true, verdicts };
}
