import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptHandler, ScriptReply } from "../../src/agents/scripted.js";
import type { AgentRequest } from "../../src/domain/agent.js";

/**
 * Building blocks for scripted agents in engine tests: replies in the wire formats of SPEC §7
 * (fenced JSON, as a CLI agent would print it), and readers for what fixpoint put in a prompt.
 */

export type Verdict = "APPROVED" | "APPROVED_WITH_FOLLOWUPS" | "CHANGES_REQUESTED" | "NEEDS_DISCUSSION";
export type PriorStatus = "resolved" | "still_open" | "not_applicable";

export interface WireFinding {
  severity: string;
  category: string;
  title: string;
  body: string;
  file: string;
  line_start: number;
  line_end: number;
  suggested_fix?: string;
}

export interface WirePrior {
  id: string;
  status: PriorStatus;
  note?: string;
}

export interface WireFixEntry {
  id: string;
  status: "fixed" | "blocked" | "deferred";
  justification: string;
  reason?: string;
}

/** A finding on a real file of the harness program (`src/app.js` unless given). */
export function finding(severity: string, title: string, opts: Partial<WireFinding> = {}): WireFinding {
  const line = opts.line_start ?? 2;
  return {
    severity,
    category: "correctness",
    title,
    body: `${title}: found while reading the change.`,
    file: "src/app.js",
    line_start: line,
    line_end: opts.line_end ?? line,
    ...opts,
  };
}

function fenced(value: unknown, lead: string): string {
  return `${lead}\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n`;
}

export function reviewReply(
  verdict: Verdict,
  findings: WireFinding[] = [],
  prior: WirePrior[] = [],
  extra: Partial<ScriptReply> = {},
): ScriptReply {
  const summary = findings.length ? `Found ${findings.length} problem(s).` : "No problems found.";
  return { text: fenced({ verdict, summary, findings, prior }, "Review done."), ...extra };
}

export function fixReply(entries: WireFixEntry[], extra: Partial<ScriptReply> = {}): ScriptReply {
  return {
    text: fenced({ summary: `Addressed ${entries.length} finding(s).`, findings: entries }, "Done."),
    ...extra,
  };
}

/** Text no parser can read: no JSON, no verdict line. */
export function garbageReply(extra: Partial<ScriptReply> = {}): ScriptReply {
  return { text: "I looked around and everything seems... interesting. ¯\\_(ツ)_/¯", ...extra };
}

/** Ids the review prompt asks the reviewer to give a status (the "earlier findings" table rows). */
export function priorIds(prompt: string): string[] {
  return [...prompt.matchAll(/^(F-\d+) \| P\d \| [a-z]+ \|/gm)].map((m) => m[1] as string);
}

/** Ids the fix prompt lists: `#### F-3 · P1 · open …` headings, or `### F-3 [P1] …` in a resume follow-up. */
export function fixIds(prompt: string): string[] {
  const ids = [...prompt.matchAll(/^#{3,4} (F-\d+) (?:·|\[)/gm)].map((m) => m[1] as string);
  return [...new Set(ids)];
}

/** Every prior id answered with one status. */
export function answerAll(prompt: string, status: PriorStatus, note?: string): WirePrior[] {
  return priorIds(prompt).map((id) => (note ? { id, status, note } : { id, status }));
}

/** A fixer that claims every listed id fixed and touches a file so its cycle has a commit. */
export function fixEverything(extra: Partial<ScriptReply> = {}): ScriptHandler {
  return (req, ctx) => {
    appendFileSync(join(req.cwd, "src/app.js"), `// fix ${ctx.invocation}\n`);
    const entries = fixIds(req.prompt).map((id) => ({
      id,
      status: "fixed" as const,
      justification: `changed src/app.js for ${id}`,
    }));
    return fixReply(entries, extra);
  };
}

/** An implementer that writes a real feature into the program. */
export function implementFeature(extra: Partial<ScriptReply> = {}): ScriptHandler {
  return (req) => {
    writeFileSync(join(req.cwd, "src/feature.js"), "export function double(x) {\n  return x * 2;\n}\n");
    return { text: "Implemented double() in src/feature.js.", ...extra };
  };
}

/** A reviewer that approves and resolves whatever it is asked about. */
export function approveAll(extra: Partial<ScriptReply> = {}): ScriptHandler {
  return (req) =>
    reviewReply("APPROVED", [], answerAll(req.prompt, "resolved", "verified in the code"), extra);
}

/** Dispatches the shared `reviewer` agent by stage id (the built-in workflows run three reviewers on it). */
export function byStage(
  handlers: Record<string, ScriptHandler>,
  fallback: ScriptHandler = approveAll(),
): ScriptHandler {
  return (req: AgentRequest, ctx) => (handlers[req.stageId] ?? fallback)(req, ctx);
}

/** A handler that never answers: only the stage's timeout or a cancel ends it. */
export function hang(): ScriptHandler {
  return () => new Promise<ScriptReply>(() => undefined);
}

const TITLES = [
  "greet() crashes on undefined names",
  "double() overflows for huge integers",
  "The feature module has no tests at all",
  "Error messages leak the home directory path",
  "README does not mention double()",
  "Exported names are not sorted",
  "Inconsistent quote style in src/app.js",
];

/**
 * Always finds something new and blocking, resolving what came before. Two new findings on even
 * cycles and one on odd cycles, so the count of open blocking findings goes down every other
 * cycle (that is not "no progress") — only the cycle bound can stop it.
 */
export function relentlessReviewer(): ScriptHandler {
  let next = 0;
  return (req) => {
    const count = req.cycle % 2 === 0 ? 2 : 1;
    const found = Array.from({ length: count }, () => {
      const title = TITLES[next % TITLES.length] as string;
      next += 1;
      return finding("P1", title, { line_start: next * 20 });
    });
    return reviewReply("CHANGES_REQUESTED", found, answerAll(req.prompt, "resolved", "that one is fixed"));
  };
}
