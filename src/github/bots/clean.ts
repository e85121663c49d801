import { mapLines } from "../../util/lines.js";
import { fencedBlocks } from "../../util/markdown-fences.js";
import { replaceEach } from "../../util/replace-each.js";
import {
  type Block,
  cutBlocks,
  detailsBlocks,
  firstWordsLine,
  sentence,
  stripHtmlComments,
  stripImages,
  suggestionOf,
  tidy,
} from "./markdown.js";

/** A bot comment reduced to its explanation, with the parts meant for a fixer kept apart. */
export interface Cleaned {
  text: string;
  suggestion?: string;
  agentPrompt?: string;
}

const PROMPT_SUMMARY = /prompt (?:for|to fix with) ai|ai agents? prompt|prompt for agents?/i;
const COMMITTABLE = /committable suggestion/i;
const PROPOSED = /proposed fix|suggested fix|suggested change|fix suggestion|refactor|diff/i;

/**
 * Drops what is not the explanation — collapsed blocks (analysis chains, learnings, review
 * details, extra locations), HTML comments (fingerprints, markers), badges and images, `<sub>`
 * and `<sup>` footers, "fix in …" buttons — and keeps a ```suggestion block and the bot's
 * prompt for AI agents as separate fields. Never throws; a comment that is nothing but
 * decoration cleans to "".
 */
export function cleanComment(body: string): Cleaned {
  const normalised = body.replace(/\r\n?/g, "\n");
  const blocks = detailsBlocks(normalised);
  const out: Cleaned = { text: "" };
  for (const b of blocks) keepFromBlock(b, out);
  let text = stripHtmlComments(cutBlocks(normalised, blocks));
  const suggestion = suggestionOf(text);
  if (suggestion !== undefined) {
    out.suggestion = suggestion;
    text = dropSuggestionFences(text);
  }
  text = mapLines(stripImages(text), (line) => (isDecoration(line) ? null : line));
  out.text = tidy(
    replaceEach(
      text,
      /<\/?(?:p|div|br|hr|h[1-6]|table|tr|td|th|tbody|thead|span|b|strong|em|i|code|a)\b[^<>]{0,500}>/gi,
      (m) => inlineTag(m[0]),
    ),
  );
  return out;
}

function keepFromBlock(b: Block, out: Cleaned): void {
  if (PROMPT_SUMMARY.test(b.summary)) {
    if (out.agentPrompt === undefined) {
      const fenced = fencedBlocks(b.inner)[0];
      const raw = fenced ? fenced.body : b.inner;
      const prompt = tidy(stripHtmlComments(raw));
      if (prompt) out.agentPrompt = prompt;
    }
    return;
  }
  if (out.suggestion !== undefined) return;
  if (COMMITTABLE.test(b.summary)) {
    const s = suggestionOf(b.inner) ?? fencedBlocks(b.inner)[0]?.body;
    if (s !== undefined) out.suggestion = s.replace(/\n$/, "");
  } else if (PROPOSED.test(b.summary)) {
    const code = fencedBlocks(b.inner)[0];
    if (code) out.suggestion = code.body.replace(/\n$/, "");
  }
}

function dropSuggestionFences(text: string): string {
  const blocks = fencedBlocks(text).filter((f) => /^suggestion\b/.test(f.info));
  let out = "";
  let at = 0;
  for (const f of blocks) {
    out += text.slice(at, f.start);
    at = f.end;
  }
  return out + text.slice(at);
}

/** Footers, buttons and bare markup lines: nothing a fixer needs. */
function isDecoration(line: string): boolean {
  const t = line.trim();
  if (t === "") return false;
  if (/^<su[bp]>[\s\S]{0,2000}<\/su[bp]>$/i.test(t) && !/[.!?]\s/.test(t.replace(/<[^<>]{0,500}>/g, "")))
    return true;
  if (/^<\/?(?:su[bp]|details|summary|blockquote|picture|source|div|p|br|hr)\b[^<>]{0,500}>$/i.test(t))
    return true;
  if (/^\[?(?:fix in (?:cursor|web)|open in (?:cursor|web)|fix all with|view in app)\b/i.test(t)) return true;
  if (/^(?:&nbsp;|\s)+$/.test(t)) return true;
  // Codex's feedback footer.
  if (/^useful\? react with\b/i.test(t)) return true;
  return false;
}

function inlineTag(tag: string): string {
  if (/^<\/?(?:b|strong)\b/i.test(tag)) return "**";
  if (/^<\/?(?:em|i)\b/i.test(tag)) return "_";
  if (/^<\/?code\b/i.test(tag)) return "`";
  if (/^<(?:br|\/p|\/div|\/h[1-6]|\/tr|hr)\b/i.test(tag)) return "\n";
  return " ";
}

/** The comment's first line with words, for warnings and fallbacks (plain text, one line). */
export function firstLine(body: string): string {
  const line = firstWordsLine(body);
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/**
 * A title from cleaned text: the first sentence of the first line with words, `skip` lines
 * (severity markers) passed over.
 */
export function titleFrom(text: string, skip?: (line: string) => boolean): string {
  return sentence(firstWordsLine(text, skip));
}

/** Removes the first line that satisfies `pred` (a marker line, a heading already used as title). */
export function dropLine(text: string, pred: (line: string) => boolean): string {
  let dropped = false;
  return tidy(
    mapLines(text, (line) => {
      if (dropped || !pred(line)) return line;
      dropped = true;
      return null;
    }),
  );
}
