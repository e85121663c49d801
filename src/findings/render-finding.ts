import type { Finding, FixAttempt } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";
import { fenceUntrusted, oneLine } from "./fence.js";

/** How much detail one finding gets; the renderer steps down these as the budget tightens. */
export interface Detail {
  /** Body characters kept; null = whole body. */
  bodyMax: number | null;
  /** Newest attempts shown in full; older ones are one summary line. */
  attempts: number;
  /** Cap for suggested fix, note and each attempt line. */
  textMax: number;
}

export const FULL: Detail = { bodyMax: null, attempts: 2, textMax: 600 };
export const SHORT_BODIES: Detail = { bodyMax: 400, attempts: 2, textMax: 240 };
export const LAST_ATTEMPT: Detail = { bodyMax: 400, attempts: 1, textMax: 240 };
export const MINIMAL: Detail = { bodyMax: 120, attempts: 1, textMax: 120 };

function clip(text: string, max: number | null): string {
  const t = redactSecrets(text.trim());
  if (max === null || t.length <= max) return t;
  return `${t.slice(0, max).trimEnd()} … [truncated]`;
}

export function lines(f: Finding): string {
  if (f.lineStart === null) return "";
  return f.lineEnd !== null && f.lineEnd !== f.lineStart ? `${f.lineStart}-${f.lineEnd}` : `${f.lineStart}`;
}

/** A file path as a reviewer wrote it, safe to put on a heading line. */
export function safePath(file: string | null): string {
  return file === null ? "(no file)" : oneLine(file.replace(/`/g, "'"), 160);
}

interface AttemptRun {
  first: number;
  last: FixAttempt;
  count: number;
}

function attemptLine(run: AttemptRun, max: number): string {
  const a = run.last;
  const sha = a.commitSha ? ` [${a.commitSha.slice(0, 10)}]` : "";
  const rejection = a.rejection ? ` — REJECTED: ${oneLine(a.rejection, max)}` : "";
  const when = run.count > 1 ? `cycles ${run.first}–${a.cycle} (${run.count}×)` : `cycle ${a.cycle}`;
  return `- ${when}: ${a.status}${sha} — ${oneLine(a.justification, max) || "(none)"}${rejection}`;
}

/**
 * Consecutive attempts that said the same thing are one line ("cycles 2–9 (8×): deferred — …"),
 * so a finding the fixer keeps answering the same way does not grow the prompt every cycle.
 */
function attemptRuns(attempts: FixAttempt[]): AttemptRun[] {
  const runs: AttemptRun[] = [];
  for (const a of attempts) {
    const prev = runs.at(-1);
    const same =
      prev &&
      prev.last.status === a.status &&
      prev.last.justification === a.justification &&
      (prev.last.rejection ?? "") === (a.rejection ?? "");
    if (prev && same) {
      prev.last = a;
      prev.count++;
    } else runs.push({ first: a.cycle, last: a, count: 1 });
  }
  return runs;
}

function attemptsBlock(attempts: FixAttempt[], keep: number, max: number): string[] {
  if (attempts.length === 0) return [];
  const runs = attemptRuns(attempts);
  const older = runs.slice(0, Math.max(0, runs.length - keep)).reduce((n, r) => n + r.count, 0);
  const out = ["Earlier attempts:"];
  if (older > 0) out.push(`- … ${older} earlier attempt${older === 1 ? "" : "s"}`);
  for (const r of runs.slice(-keep)) out.push(attemptLine(r, max));
  return out;
}

/** Distinct raisers only, so the line does not grow with the number of cycles. */
function raisedBy(f: Finding): string {
  const names = [...new Set(f.sources.map((s) => s.source))];
  const shown = names.slice(0, 4).map((n) => oneLine(n, 60));
  return names.length > 4 ? `${shown.join(", ")}, +${names.length - 4} more` : shown.join(", ");
}

/** One finding: trusted metadata on the heading, everything a model or a person wrote fenced. */
export function renderFinding(f: Finding, d: Detail): string {
  const span = lines(f);
  const where = span ? ` · ${span.includes("-") ? "lines" : "line"} ${span}` : "";
  const by = raisedBy(f);
  const heading = `#### ${f.id} · ${f.severity} · ${f.status}${where} · ${oneLine(f.category, 40)}${by ? ` · raised by ${by}` : ""}`;
  const parts = [`Title: ${oneLine(f.title, 300)}`];
  const body = clip(f.body, d.bodyMax);
  if (body) parts.push(body);
  if (f.suggestedFix) parts.push(`Suggested fix: ${clip(f.suggestedFix, d.textMax)}`);
  if (f.note) parts.push(`Reviewer's note: ${clip(f.note, d.textMax)}`);
  const attempts = attemptsBlock(f.attempts, d.attempts, d.textMax);
  if (attempts.length) parts.push(attempts.join("\n"));
  return `${heading}\n${fenceUntrusted(`${f.id} as reported`, parts.join("\n\n"))}`;
}
