import { parseBadged } from "./badge.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = ["chatgpt-codex-connector", "codex"];

/** `![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)` inside `<sub><sub>`. */
function level(img: { alt: string; src: string }): string | null {
  return /^\s*(P[0-3])\b/i.exec(img.alt)?.[1] ?? /\/badge\/(P[0-3])[-_]/i.exec(img.src)?.[1] ?? null;
}

/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const r = parseBadged(comment.body, level);
  if (!r) return null;
  const severity = scaled("codex", r.word ?? undefined);
  return {
    ...r.found,
    severity,
    category: "correctness",
    ...(severity === null ? { unrecognised: true } : {}),
  };
}

/**
 * Findings Codex could not place inline: a blob permalink to `path#L12-L14`, then the badge
 * line and the explanation, repeated per finding.
 */
export function parseReviewBody(body: string): BotFinding[] {
  const out: BotFinding[] = [];
  // Split before the line that holds the link: `\n(?=\s*https…)` looked ahead from every line break
  // of a run of blank lines across the whole run (65,000: 1.3 s).
  const parts = body
    .replace(/\r\n?/g, "\n")
    .split(/\n(?=[^\S\n]*https:\/\/\S{1,500}\/blob\/[0-9a-f]{7,40}\/)/);
  for (const part of parts) {
    const link = /https:\/\/\S{1,500}?\/blob\/[0-9a-f]{7,40}\/(\S{1,500}?)#L(\d{1,7})(?:-L(\d{1,7}))?/.exec(
      part,
    );
    if (!link) continue;
    const r = parseBadged(part.slice(link.index + link[0].length), level);
    const severity = scaled("codex", r?.word ?? undefined);
    if (!r || severity === null) continue;
    const line = Number(link[2]);
    out.push({
      ...r.found,
      severity,
      category: "correctness",
      path: decodeURIComponent(link[1] ?? ""),
      line,
      lineEnd: link[3] === undefined ? line : Number(link[3]),
    });
  }
  return out;
}

export const codex: BotAdapter = {
  name: "codex",
  logins: LOGINS,
  detect: (c) =>
    byLogin(c, LOGINS) ||
    /!\[P[0-3] Badge\]\(https:\/\/img\.shields\.io\/badge\/P[0-3]/.test(c.body.slice(0, 2000)),
  parse,
  parseReviewBody,
};

/** Whether codex wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return codex.detect(comment);
}
