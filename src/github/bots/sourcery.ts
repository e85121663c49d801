import { findLine } from "../../util/lines.js";
import { cleanComment, dropLine } from "./clean.js";
import { plainText, sentence } from "./markdown.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = ["sourcery-ai", "sourcery-ai-experiments"];
/**
 * `**issue (bug_risk):** …`, `**suggestion (security):** …`, `**nitpick (typo):** …`, `**praise:** …`.
 * The kind in brackets keeps its spaces (they are trimmed after): `\(\s*([a-z _-]{1,40})\s*\)` split
 * a run of spaces three ways, and `**todo(` before 65,000 of them took 2.2 s.
 */
const PREFIX =
  /^[ \t]*\*\*[ \t]*(issue|suggestion|nitpick|question|praise|thought|todo|chore)[ \t]*(?:\(([a-z0-9_ \t-]{1,40})\)[ \t]*)?:[ \t]*\*\*[ \t]*(.*)$/im;

function severityOf(kind: string, sub: string | undefined): ReturnType<typeof scaled> {
  const k = kind.toLowerCase();
  const s = sub?.trim().toLowerCase();
  if (s !== undefined) return scaled("sourcery", `${k} (${s})`) ?? scaled("sourcery", k);
  return scaled("sourcery", k);
}

function categoryOf(sub: string | undefined, kind: string): string {
  const s = sub?.toLowerCase() ?? "";
  if (s.includes("security")) return "security";
  if (s.includes("bug")) return "correctness";
  if (s.includes("test")) return "tests";
  if (s.includes("performance")) return "performance";
  return kind.toLowerCase() === "issue" ? "correctness" : "style";
}

/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const cleaned = cleanComment(comment.body);
  const m = PREFIX.exec(cleaned.text);
  const kind = m?.[1] ?? "";
  // Praise is not a finding.
  if (kind.toLowerCase() === "praise") return null;
  const rest = plainText(m?.[3] ?? "");
  let text = cleaned.text;
  if (m) text = dropLine(text, (l) => l === m[0]);
  const title = sentence(rest) || sentence(plainText(findLine(text, (l) => l.trim() !== "") ?? ""));
  const body = rest && m ? [rest, text].filter(Boolean).join("\n\n") : text;
  const severity = m ? severityOf(kind, m[2]) : null;
  return {
    severity,
    title,
    body,
    category: m ? categoryOf(m[2], kind) : "pr-comment",
    ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
    ...(cleaned.agentPrompt !== undefined ? { agentPrompt: cleaned.agentPrompt } : {}),
    ...(severity === null ? { unrecognised: true } : {}),
  };
}

/**
 * Sourcery's review body: its individual comments are also posted inline (and repeated in a
 * prompt block), so only the "Overall Comments" bullets — findings with no place — are taken.
 */
export function parseReviewBody(body: string): BotFinding[] {
  const text = body.replace(/\r\n?/g, "\n");
  const at = /^#{1,4}\s*overall comments\s*$/im.exec(text);
  if (!at) return [];
  const rest = text.slice(at.index + at[0].length);
  const stop = /^#{1,4}\s|^<\/?details/im.exec(rest);
  const out: BotFinding[] = [];
  for (const item of (stop ? rest.slice(0, stop.index) : rest).split(/\n(?=\s{0,3}[-*+]\s)/)) {
    if (!/^\s{0,3}[-*+]\s/.test(item)) continue;
    const inner = item.replace(/^\s{0,3}[-*+]\s+/, "");
    const parsed = parse({ author: "sourcery-ai", authorIsBot: true, body: inner });
    if (!parsed) continue;
    const { unrecognised: _u, ...f } = parsed;
    out.push({ ...f, severity: parsed.severity ?? "P3" });
  }
  return out;
}

export const sourcery: BotAdapter = {
  name: "sourcery",
  logins: LOGINS,
  detect: (c) => byLogin(c, LOGINS),
  parse,
  parseReviewBody,
};

/** Whether sourcery wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return sourcery.detect(comment);
}
