import { cleanComment, dropLine, titleFrom } from "./clean.js";
import { plainText, sentence, stripHtmlComments } from "./markdown.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = ["cursor", "cursor-bugbot", "bugbot"];
const HEADING = /^[ \t]{0,3}(?:#{2,4}[ \t]+(?:Bug:[ \t]*)?(.{1,500})|\*\*Bug:[ \t]*(.{1,500}?)\*\*[ \t]*)$/m;
/**
 * `**High Severity**`, or the words alone on a line. Spaces around a line's words are `[^\S\n]`,
 * not `\s`: from every line start of a run of blank lines `\s*` read the whole run (65,000: 2.4 s).
 */
const SEVERITY =
  /\*\*\s*(critical|high|medium|low)\s+severity\s*\*\*|^[^\S\n]*(critical|high|medium|low)[^\S\n]+severity[^\S\n]*$/im;
/**
 * `<!-- LOCATIONS START\npath#L12-L14\nLOCATIONS END -->`: the first location. The line break is
 * the first one after the marker: `\s*\n` tried each break of a run of blank lines in turn.
 */
const LOCATION = /LOCATIONS START[^\S\n]*\n\s*([^\s#]{1,500})#L(\d{1,7})(?:-L(\d{1,7}))?/;

/**
 * Cursor Bugbot: a `### Bug: <title>` (or `### <title>`) heading, a `**High Severity**` line,
 * the description between `DESCRIPTION START/END` markers, a `BUGBOT_BUG_ID` fingerprint, a
 * hidden locations list and "Fix in Cursor / Web" buttons.
 */
/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const raw = comment.body.replace(/\r\n?/g, "\n");
  const sev = SEVERITY.exec(stripHtmlComments(raw)) ?? SEVERITY.exec(raw);
  const severity = scaled("bugbot", sev?.[1] ?? sev?.[2]);
  const cleaned = cleanComment(raw);
  const heading = HEADING.exec(cleaned.text);
  let text = cleaned.text;
  if (heading) text = dropLine(text, (l) => l === heading[0]);
  text = dropLine(text, (l) => SEVERITY.test(l));
  const title = heading ? sentence(plainText(heading[1] ?? heading[2] ?? "")) : titleFrom(text);
  const loc = LOCATION.exec(raw);
  const line = loc ? Number(loc[2]) : undefined;
  return {
    severity,
    title,
    body: text,
    category: "correctness",
    ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
    ...(cleaned.agentPrompt !== undefined ? { agentPrompt: cleaned.agentPrompt } : {}),
    ...(loc?.[1] ? { path: loc[1] } : {}),
    ...(line !== undefined ? { line, lineEnd: loc?.[3] === undefined ? line : Number(loc[3]) } : {}),
    ...(severity === null ? { unrecognised: true } : {}),
  };
}

export const bugbot: BotAdapter = {
  name: "bugbot",
  logins: LOGINS,
  detect: (c) => byLogin(c, LOGINS) || /BUGBOT_BUG_ID/.test(c.body),
  parse,
};

/** Whether bugbot wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return bugbot.detect(comment);
}
