import { imagesIn, parseBadged } from "./badge.js";
import { plainText, sentence, stripHtmlComments, tidy } from "./markdown.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = ["gemini-code-assist"];

/** `![high](https://www.gstatic.com/codereviewagent/high-priority.svg)`, `critical.svg`, … */
function level(img: { alt: string; src: string }): string | null {
  return (
    /codereviewagent\/(?:security-)?(critical|high|medium|low)(?:[-_]priority)?\.svg/i.exec(img.src)?.[1] ??
    /^\s*(critical|high|medium|low)(?:[ -]priority)?\s*$/i.exec(img.alt)?.[1] ??
    null
  );
}

/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const r = parseBadged(comment.body, level);
  if (!r) return null;
  const severity = scaled("gemini", r.word ?? undefined);
  const category = /security/i.test(`${comment.body.slice(0, 300)} ${r.found.body.slice(0, 500)}`)
    ? "security"
    : "correctness";
  return { ...r.found, severity, category, ...(severity === null ? { unrecognised: true } : {}) };
}

const SECTION = /^#{2,4}\s*(?:summary of findings|findings|review findings)\s*$/im;
const NEXT_HEADING = /^#{1,4}\s/m;
/** `file.py:12`, `` `src/a.ts` (lines 3-5) ``, `in src/a.ts line 7`. */
const PLACE =
  /`?(?<![\w./-])([\w./-]{1,300}\.[A-Za-z0-9]{1,10})`?\s*(?::|,?\s*\(?(?:lines?|L)\s*)(\d{1,7})(?:\s*[-–]\s*L?(\d{1,7}))?/;

/**
 * Gemini's review summary: prose about the change (ignored) and, in some reviews, a findings
 * list — one bullet per finding, `**Title**: explanation`, with a severity image or word and
 * a place when the bot gives one. Bullets without a severity are the ones it left out of the
 * inline comments for being below its threshold: P3.
 */
export function parseReviewBody(body: string): BotFinding[] {
  const text = stripHtmlComments(body.replace(/\r\n?/g, "\n"));
  const at = SECTION.exec(text);
  if (!at) return [];
  const rest = text.slice(at.index + at[0].length);
  const stop = NEXT_HEADING.exec(rest);
  const section = stop ? rest.slice(0, stop.index) : rest;
  const out: BotFinding[] = [];
  for (const item of section.split(/\n(?=\s{0,3}(?:[-*+]|\d+\.)\s)/)) {
    if (!/^\s{0,3}(?:[-*+]|\d+\.)\s/.test(item)) continue;
    const word =
      imagesIn(item)
        .map(level)
        .find((w) => w !== null) ??
      /\b(critical|high|medium|low)\b(?=[\s-]*(?:severity|priority))/i.exec(item)?.[1];
    const plain = plainText(item.replace(/\n/g, " "));
    const m = /^([^:]{1,200}):\s*(.*)$/.exec(plain);
    const title = sentence(m?.[1] ?? plain);
    if (!title) continue;
    const place = PLACE.exec(item);
    const line = place ? Number(place[2]) : undefined;
    out.push({
      severity: scaled("gemini", word ?? undefined) ?? "P3",
      title,
      body: tidy(m?.[2] ?? plain),
      category: "correctness",
      ...(place?.[1] ? { path: place[1] } : {}),
      ...(line !== undefined ? { line, lineEnd: place?.[3] === undefined ? line : Number(place[3]) } : {}),
    });
  }
  return out;
}

export const gemini: BotAdapter = {
  name: "gemini",
  logins: LOGINS,
  detect: (c) => byLogin(c, LOGINS) || /gstatic\.com\/codereviewagent\//i.test(c.body.slice(0, 2000)),
  parse,
  parseReviewBody,
};

/** Whether gemini wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return gemini.detect(comment);
}
