/**
 * Text fixpoint writes to GitHub: thread replies, the PR body, tech-debt issues. Pure.
 * Hidden HTML-comment markers make what we wrote recognisable on a rerun.
 */
import type { Finding, FixAttempt } from "../domain/types.js";

export interface Disposition {
  /** `refuted`: a verify stage showed the finding is not a bug (`justification` is the evidence). */
  status: "fixed" | "blocked" | "deferred" | "rejected" | "no_report" | "refuted";
  sha?: string;
  justification: string;
  /** A command the thread's bot understands (config `bots { <login> command=… }`), on its own line. */
  command?: string;
}

export const REPLY_MARKER = "<!-- fixpoint:reply -->";

const FINDING_MARKER_OPEN = "<!-- fixpoint:finding:";
const MARKER_CLOSE = " -->";

export function findingMarker(fingerprint: string): string {
  return `${FINDING_MARKER_OPEN}${fingerprint}${MARKER_CLOSE}`;
}

/**
 * The longest fingerprint `findingMarkersIn` reads (a path git allows and a long title): a body
 * of many openings and one close at its end would otherwise give markers as long as the body.
 */
const MAX_MARKED_FINGERPRINT = 5_000;

/** Whether `findingMarkersIn` reads `findingMarker(fingerprint)` whole: not too long, no close inside it. */
export function markerReadable(fingerprint: string): boolean {
  return fingerprint.length <= MAX_MARKED_FINGERPRINT && !fingerprint.includes(MARKER_CLOSE);
}

/**
 * Every finding marker `body` holds, in order: each marker a `body.includes(findingMarker(f))`
 * would find for a `markerReadable(f)`, read in one pass (an issue's body is untrusted and can be
 * long). A marker ends at the first close after its opening.
 */
export function findingMarkersIn(body: string): string[] {
  const out: string[] = [];
  let close = 0;
  for (
    let at = body.indexOf(FINDING_MARKER_OPEN);
    at !== -1;
    at = body.indexOf(FINDING_MARKER_OPEN, at + 1)
  ) {
    const from = at + FINDING_MARKER_OPEN.length;
    // The first close after this opening; the one found for an earlier opening serves while it lies past it.
    if (close < from) close = body.indexOf(MARKER_CLOSE, from);
    if (close === -1) break;
    if (close - from <= MAX_MARKED_FINGERPRINT) out.push(body.slice(at, close + MARKER_CLOSE.length));
  }
  return out;
}

export function taskMarker(taskId: string): string {
  return `<!-- fixpoint:task:${taskId} -->`;
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
const shortSha = (sha: string) => sha.slice(0, 12);

/** `Applied in <sha>: <what changed>` or `Declined: <reason>`, plus the reply marker. */
export function replyBody(d: Disposition): string {
  const why = oneLine(d.justification);
  let text: string;
  switch (d.status) {
    case "fixed":
      text = d.sha ? `Applied in ${shortSha(d.sha)}: ${why || "fixed"}` : `Applied: ${why || "fixed"}`;
      break;
    case "blocked":
      text = `Declined: blocked — ${why || "no reason given"}`;
      break;
    case "deferred":
      text = `Declined: deferred — ${why || "no reason given"}`;
      break;
    case "rejected":
      text = `Declined: ${why || "the fix was not accepted"}`;
      break;
    case "no_report":
      text = `Declined: the fixer did not report on this comment${why ? ` (${why})` : ""}`;
      break;
    case "refuted":
      text = `Won't fix: refuted — ${why || "verification found no problem"}`;
      break;
  }
  const command = d.command ? `\n\n${oneLine(d.command)}` : "";
  return `${text}${command}\n\n${REPLY_MARKER}`;
}

/** A table cell: no pipes or newlines may break the row. */
function cell(s: string): string {
  return oneLine(s).replace(/\|/g, "\\|");
}

function location(f: Pick<Finding, "file" | "lineStart" | "lineEnd">): string {
  if (!f.file) return "—";
  if (f.lineStart === null) return f.file;
  return f.lineEnd !== null && f.lineEnd !== f.lineStart
    ? `${f.file}:${f.lineStart}-${f.lineEnd}`
    : `${f.file}:${f.lineStart}`;
}

export interface PrBodyInput {
  task: { id: string; title: string; summary?: string };
  findings: Pick<Finding, "id" | "severity" | "status" | "title" | "file" | "lineStart" | "lineEnd">[];
  cost?: { usd: number; tokens: number };
}

export function prBody(input: PrBodyInput): string {
  const lines = [`**${input.task.title}**`, ""];
  if (input.task.summary) lines.push(input.task.summary.trim(), "");
  if (input.findings.length > 0) {
    lines.push(
      "### Review findings",
      "",
      "| id | severity | status | title | where |",
      "|---|---|---|---|---|",
    );
    for (const f of input.findings) {
      lines.push(`| ${f.id} | ${f.severity} | ${f.status} | ${cell(f.title)} | ${cell(location(f))} |`);
    }
    lines.push("");
  } else {
    lines.push("No review findings.", "");
  }
  if (input.cost) {
    lines.push(
      `Cost: $${input.cost.usd.toFixed(2)}, ${input.cost.tokens.toLocaleString("en-US")} tokens.`,
      "",
    );
  }
  lines.push(`<sub>Driven by fixpoint, task ${input.task.id}.</sub>`, taskMarker(input.task.id));
  return lines.join("\n");
}

export interface TechDebtContext {
  prUrl?: string;
  taskId: string;
  /** Defaults to `findingMarker(finding.fingerprint)`. */
  fingerprintMarker?: string;
}

/** The issue a finding becomes when the loop ends without it resolved (seed 003). */
export function techDebtIssue(finding: Finding, ctx: TechDebtContext): { title: string; body: string } {
  const title = `[${finding.severity}] ${oneLine(finding.title)}`.slice(0, 256);
  const lines = [
    `**Severity:** ${finding.severity} · **Category:** ${finding.category} · **Status:** ${finding.status}`,
    `**Where:** ${location(finding) === "—" ? "not tied to a file" : `\`${location(finding)}\``}`,
    `**Task:** ${ctx.taskId} (finding ${finding.id})${ctx.prUrl ? ` · **PR:** ${ctx.prUrl}` : ""}`,
    "",
    "### Finding",
    "",
    finding.body.trim() || "_no description_",
    "",
  ];
  if (finding.suggestedFix) lines.push("### Suggested fix", "", finding.suggestedFix.trim(), "");
  if (finding.note) lines.push(`**Last reviewer note:** ${oneLine(finding.note)}`, "");
  lines.push("### Fix attempts", "");
  if (finding.attempts.length === 0) lines.push("None.");
  else {
    lines.push("| cycle | status | justification | commit |", "|---|---|---|---|");
    for (const a of finding.attempts) lines.push(attemptRow(a));
  }
  lines.push("", ctx.fingerprintMarker ?? findingMarker(finding.fingerprint));
  return { title, body: lines.join("\n") };
}

function attemptRow(a: FixAttempt): string {
  const why = a.rejection ? `${a.justification} (rejected: ${a.rejection})` : a.justification;
  return `| ${a.cycle} | ${a.status} | ${cell(why) || "—"} | ${a.commitSha ? shortSha(a.commitSha) : "—"} |`;
}
