import { firstLineOf } from "../../util/lines.js";
import { cleanComment, titleFrom } from "./clean.js";
import { plainText, sentence, stripHtmlComments, tidy } from "./markdown.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = ["copilot-pull-request-reviewer", "copilot", "github-copilot"];
const NITPICK = /^\s*\[nitpick\]\s*/i;

/**
 * Copilot writes plain prose with no severity of its own: an inline comment is P2, one it
 * opens with `[nitpick]` is P3. A ```suggestion block is the proposed change.
 */
/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const cleaned = cleanComment(comment.body);
  const nit = NITPICK.test(cleaned.text);
  const text = cleaned.text.replace(NITPICK, "");
  const title = titleFrom(text);
  return {
    severity: scaled("copilot", nit ? "nitpick" : "inline comment"),
    title,
    body: text,
    category: nit ? "style" : "pr-comment",
    ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
  };
}

const SUPPRESSED = /comments suppressed due to low confidence|suppressed comments/i;
/** `**path/to/file.ts:42**` or `**path/to/file.ts:40-44**` heading an entry. */
/** Spaces around an entry's head are its line's own (`[^\S\n]`): `^\s*` read a run of blank lines from each. */
const ENTRY = /^[^\S\n]*\*\*([^*\n:]{1,500}):(\d{1,7})(?:-(\d{1,7}))?\*\*[^\S\n]*$/gm;

/**
 * The review body's low-confidence section (a `<details>` whose summary is "Comments suppressed
 * due to low confidence (N)", or a `### Suppressed comments (N)` heading): one finding per
 * `**path:line**` entry, P3. The overview and file summaries are not findings.
 */
export function parseReviewBody(body: string): BotFinding[] {
  const text = stripHtmlComments(body.replace(/\r\n?/g, "\n"));
  const at = text.search(SUPPRESSED);
  if (at < 0) return [];
  const rest = text.slice(at);
  const end = rest.search(/<\/details>|\n#{1,4}\s(?!.*suppressed)/i);
  const section = end < 0 ? rest : rest.slice(0, end);
  const heads = [...section.matchAll(ENTRY)];
  return heads.map((h, i) => {
    const from = h.index + h[0].length;
    const to = heads[i + 1]?.index ?? section.length;
    const raw = section.slice(from, to);
    const cleaned = cleanComment(raw.replace(/^[^\S\n]*[*-]\s+/m, ""));
    const prose = cleaned.text.replace(/```[\s\S]*$/m, "").trim();
    const line = Number(h[2]);
    return {
      severity: scaled("copilot", "low confidence"),
      title: sentence(plainText(firstLineOf(prose))) || titleFrom(cleaned.text),
      body: tidy(prose),
      category: "pr-comment",
      path: (h[1] ?? "").trim(),
      line,
      lineEnd: h[3] === undefined ? line : Number(h[3]),
      ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
    };
  });
}

export const copilot: BotAdapter = {
  name: "copilot",
  logins: LOGINS,
  detect: (c) => byLogin(c, LOGINS),
  parse,
  parseReviewBody,
};

/** Whether copilot wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return copilot.detect(comment);
}
