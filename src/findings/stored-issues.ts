import type { Finding, Severity, StoredReviewIssue } from "../domain/types.js";
import { isActiveFinding } from "../domain/types.js";
import { asLine, asText, isObject, pick } from "./lenient.js";
import { byId } from "./registry-core.js";
import { isBlocking, parseSeverity } from "./severity.js";

/** The reviewer credited with a finding: its first non-system source. */
function reviewer(f: Finding): string {
  return (f.sources.find((s) => s.source !== "system") ?? f.sources[0])?.source ?? "unknown";
}

/**
 * Seed 002 / SPEC §9: the blocking findings still in play when a run ends without approval, kept
 * so `resume` starts from them. "Blocking" follows the configured threshold (P0/P1 by default,
 * exactly seed 002's rule); SPEC §9 says blocking findings, so a P2 threshold keeps P2s too.
 */
export function toStoredReviewIssues(findings: Finding[], blockingSeverity: Severity): StoredReviewIssue[] {
  return findings
    .filter((f) => isActiveFinding(f.status) && isBlocking(f.severity, blockingSeverity))
    .sort(byId)
    .map((f) => {
      const lineStart = f.lineStart ?? 0;
      return {
        id: f.id,
        file: f.file ?? "unknown",
        lineStart,
        lineEnd: f.lineEnd ?? lineStart,
        severity: f.severity,
        title: f.title,
        body: f.body,
        reviewer: reviewer(f),
      };
    });
}

function readIssue(v: unknown): StoredReviewIssue | null {
  if (!isObject(v)) return null;
  const lineStart = asLine(pick(v, ["lineStart", "line_start"])) ?? 0;
  return {
    id: asText(pick(v, ["id"])) ?? "",
    file: asText(pick(v, ["file", "file_path"])) ?? "unknown",
    lineStart,
    lineEnd: asLine(pick(v, ["lineEnd", "line_end"])) ?? lineStart,
    // Only blocking findings are ever stored, so an unreadable severity is read as P1.
    severity: parseSeverity(pick(v, ["severity", "priority"])) ?? "P1",
    title: asText(pick(v, ["title"])) ?? "Unknown issue",
    body: asText(pick(v, ["body", "description"])) ?? "",
    reviewer: asText(pick(v, ["reviewer", "source"])) ?? "unknown",
  };
}

/**
 * Tolerant reader for persisted issues (seed 002's compatibility rule): JSON text or a parsed
 * value; missing keys defaulted, unknown keys ignored, entries that are not objects skipped,
 * anything that is not a list → [].
 */
export function parseStoredReviewIssues(json: unknown): StoredReviewIssue[] {
  let value = json;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      // Garbage in metadata must never stop a resume; it just means no stored issues.
      return [];
    }
  }
  if (!Array.isArray(value)) return [];
  return value.map(readIssue).filter((i): i is StoredReviewIssue => i !== null);
}
