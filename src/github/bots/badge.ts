import { eachLine } from "../../util/lines.js";
import { cleanComment, dropLine, titleFrom } from "./clean.js";
import { plainText, sentence, stripHtmlComments } from "./markdown.js";
import type { BotFinding } from "./types.js";

/** Every image in a line: its alt text and URL (markdown `![alt](url)` and HTML `<img alt src>`). */
export function imagesIn(text: string): { alt: string; src: string }[] {
  const out: { alt: string; src: string }[] = [];
  // The URL, then a title after a space: `[^)\s]{0,2000}[^)\n]{0,300}` split the same characters
  // between the two in every way, and 1,300 `![](` took 2.2–2.5 s.
  for (const m of text.matchAll(/!\[([^\][\n]{0,300})\]\(([^()\s]{0,2000})(?:\s[^()\n]{0,300})?\)/g))
    out.push({ alt: m[1] ?? "", src: m[2] ?? "" });
  for (const m of text.matchAll(/<img\b([^<>]{0,2000})>/gi)) {
    const attrs = m[1] ?? "";
    out.push({ alt: attr(attrs, "alt"), src: attr(attrs, "src") });
  }
  return out;
}

function attr(attrs: string, name: string): string {
  const m = new RegExp(
    `\\b${name}\\s*=\\s*(?:"([^"]{0,2000})"|'([^']{0,2000})'|([^\\s>]{1,2000}))`,
    "i",
  ).exec(attrs);
  return m?.[1] ?? m?.[2] ?? m?.[3] ?? "";
}

/**
 * A comment that opens with a severity image and a title on the same line (Codex's `<sub>`
 * badge, Greptile's and Gemini's priority images): the first line holding an image `level`
 * recognises gives the severity; the rest of that line, as plain text, gives the title.
 */
export function parseBadged(
  body: string,
  level: (img: { alt: string; src: string }) => string | null,
): { found: BotFinding; word: string | null } | null {
  const raw = stripHtmlComments(body.replace(/\r\n?/g, "\n"));
  let word: string | null = null;
  let badgeLine: string | undefined;
  let seen = 0;
  eachLine(raw, (line) => {
    for (const img of imagesIn(line)) {
      word = level(img);
      if (word !== null) break;
    }
    if (word !== null) badgeLine = line;
    return word !== null || ++seen === 40;
  });
  const cleaned = cleanComment(body);
  const sameLine = badgeLine === undefined ? "" : sentence(plainText(badgeLine));
  let text = cleaned.text;
  const title = sameLine || titleFrom(text);
  if (sameLine) text = dropLine(text, (l) => plainText(l) !== "" && sentence(plainText(l)) === sameLine);
  return {
    word,
    found: {
      severity: null,
      title,
      body: text,
      ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
      ...(cleaned.agentPrompt !== undefined ? { agentPrompt: cleaned.agentPrompt } : {}),
    },
  };
}
