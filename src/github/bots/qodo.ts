import type { Severity } from "../../domain/types.js";
import { cleanComment, dropLine, titleFrom } from "./clean.js";
import { plainText, sentence } from "./markdown.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = [
  "qodo-merge",
  "qodo-merge-pro",
  "qodo-merge-pro-for-open-source",
  "codium-pr-agent",
  "qodo-code-review",
  "qodo-ai",
];
/**
 * `[possible issue, importance: 8]` at the end of a suggestion; the label is trimmed after the
 * match. Spaces around it were `\s*…\s*,?\s*`, and a `[` before a run of tabs tried every way of
 * splitting the run between them (65,000 characters: 22 s).
 */
const IMPORTANCE = /\[([^,[\]\n]{0,60}),?\s*importance\s*:\s*(\d{1,2})\s*\]/i;
const LABEL = /\b(action required|remediation recommended|review recommended|advisory|informational)\b/i;
const SUGGESTION = /^[ \t]*\*\*[ \t]*suggestion[ \t]*(?::[ \t]*)?\*\*[ \t]*(?::[ \t]*)?(.*)$/im;

function fromImportance(n: number): Severity | null {
  if (n >= 9) return scaled("qodo", "importance 9-10");
  if (n >= 7) return scaled("qodo", "importance 7-8");
  if (n >= 1) return scaled("qodo", "importance 1-6");
  return null;
}

function categoryOf(label: string, text: string): string {
  const l = `${label} ${text.slice(0, 300)}`.toLowerCase();
  if (l.includes("security")) return "security";
  if (/possible (?:issue|bug)|\bbug\b|correctness/.test(l)) return "correctness";
  if (l.includes("performance")) return "performance";
  return "maintainability";
}

/**
 * Qodo Merge: a `**Suggestion:** …` with `[label, importance: N]`, or a code-review comment
 * carrying "Action required" / "Remediation recommended" / "Advisory".
 */
/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const cleaned = cleanComment(comment.body);
  const imp = IMPORTANCE.exec(cleaned.text);
  const label = LABEL.exec(cleaned.text);
  const severity = imp ? fromImportance(Number(imp[2])) : scaled("qodo", label?.[1]);
  let text = cleaned.text;
  if (imp) text = text.replace(imp[0], "").trim();
  if (label) text = dropLine(text, (l) => plainText(l).toLowerCase() === label[1]?.toLowerCase());
  const sug = SUGGESTION.exec(text);
  const bold = sug ? undefined : text.split("\n").find((l) => /^\s*\*\*[^*\n]{3,500}\*\*\s*$/.test(l));
  const title = sug
    ? sentence(plainText(sug[1] ?? ""))
    : bold !== undefined
      ? sentence(plainText(bold))
      : titleFrom(text, (l) => plainText(l).length < 3);
  if (bold !== undefined) text = dropLine(text, (l) => l === bold);
  if (sug && !plainText(sug[1] ?? "")) text = dropLine(text, (l) => l === sug[0]);
  return {
    severity,
    title,
    body: text.replace(SUGGESTION, (_m, rest: string) => rest).trim(),
    category: categoryOf((imp?.[1] ?? "").trim(), text),
    ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
    ...(cleaned.agentPrompt !== undefined ? { agentPrompt: cleaned.agentPrompt } : {}),
    ...(severity === null ? { unrecognised: true } : {}),
  };
}

export const qodo: BotAdapter = {
  name: "qodo",
  logins: LOGINS,
  detect: (c) => byLogin(c, LOGINS),
  parse,
};

/** Whether qodo wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return qodo.detect(comment);
}
