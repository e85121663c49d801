/**
 * Markdown/HTML clean-up shared by the bot adapters. Bot comments are untrusted and may be huge,
 * truncated or malformed: every scan here is linear (index scans and bounded quantifiers, never
 * a lazy `[\s\S]*?` across the whole text) and nothing throws.
 */

import { eachLine } from "../../util/lines.js";
import { replaceEach } from "../../util/replace-each.js";
import { trimLineEnds } from "../../util/trim.js";

export interface Block {
  /** Plain text of the block's `<summary>`, "" when it has none. */
  summary: string;
  /** What is inside the block, the summary removed. */
  inner: string;
  start: number;
  end: number;
}

/** Removes `<!-- … -->`; an unterminated `<!--` loses only the marker itself, not the text after it. */
export function stripHtmlComments(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const open = text.indexOf("<!--", at);
    if (open < 0) return out + text.slice(at);
    out += text.slice(at, open);
    const close = text.indexOf("-->", open + 4);
    if (close < 0) return out + text.slice(open + 4);
    at = close + 3;
  }
}

const DETAILS_OPEN = /<details\b[^<>]{0,200}>/gi;
const DETAILS_CLOSE = /<\/details\s*>/gi;

/**
 * The top-level `<details>` blocks, nested ones counted so the outer block ends at its own
 * `</details>`. A block never closed runs to the end of the text.
 */
export function detailsBlocks(text: string): Block[] {
  const tags: { at: number; end: number; open: boolean }[] = [];
  for (const m of text.matchAll(DETAILS_OPEN))
    tags.push({ at: m.index, end: m.index + m[0].length, open: true });
  for (const m of text.matchAll(DETAILS_CLOSE))
    tags.push({ at: m.index, end: m.index + m[0].length, open: false });
  tags.sort((a, b) => a.at - b.at);
  const blocks: Block[] = [];
  let depth = 0;
  let start = 0;
  let innerStart = 0;
  for (const t of tags) {
    if (t.open) {
      if (depth === 0) {
        start = t.at;
        innerStart = t.end;
      }
      depth++;
    } else if (depth > 0) {
      depth--;
      if (depth === 0) blocks.push(block(text, start, innerStart, t.at, t.end));
    }
  }
  if (depth > 0) blocks.push(block(text, start, innerStart, text.length, text.length));
  return blocks;
}

function block(text: string, start: number, innerStart: number, innerEnd: number, end: number): Block {
  let inner = text.slice(innerStart, innerEnd);
  let summary = "";
  const m = /^\s*<summary\b[^<>]{0,200}>/i.exec(inner);
  if (m) {
    const close = inner.search(/<\/summary\s*>/i);
    const stop = close < 0 ? inner.indexOf("\n", m[0].length) : close;
    const cut = stop < 0 ? inner.length : stop;
    summary = plainText(inner.slice(m[0].length, cut));
    inner = inner.slice(close < 0 ? cut : cut + (/<\/summary\s*>/i.exec(inner.slice(cut))?.[0].length ?? 0));
  }
  return { summary, inner: unquoteBlockquote(inner), start, end };
}

/** CodeRabbit wraps section bodies in `<blockquote>`; the tags carry nothing. */
function unquoteBlockquote(s: string): string {
  return s.replace(/<\/?blockquote\s*>/gi, "\n");
}

/** `text` with the given blocks cut out. */
export function cutBlocks(text: string, blocks: Block[]): string {
  let out = "";
  let at = 0;
  for (const b of blocks) {
    out += text.slice(at, b.start);
    at = b.end;
  }
  return out + text.slice(at);
}

/** The first ```suggestion block's lines; undefined when there is none. */
export function suggestionOf(text: string): string | undefined {
  const start = /^[ \t]*(`{3,}|~{3,})suggestion[^\n]{0,40}\n/im.exec(text);
  if (!start) return undefined;
  const fence = start[1] ?? "```";
  const from = start.index + start[0].length;
  const closeAt = text.indexOf(`\n${fence}`, from - 1);
  const body = closeAt < 0 ? text.slice(from) : text.slice(from, closeAt + 1);
  return body.replace(/\n$/, "");
}

/**
 * Markdown images, `<img>`, `<picture>` and links whose only content is an image. A tag's
 * attributes stop at the next `<`, an image's alt text at the next `[` and its URL at the next `(`:
 * with `[^>]` and `[^)]` each of many unclosed openers read up to its bound (2,000 characters)
 * again, and `![](` 1,300 times took 2.2–2.5 s.
 */
export function stripImages(text: string): string {
  return cutPictures(text)
    .replace(/<a\b[^<>]{0,2000}>\s{0,20}(?:<img\b[^<>]{0,2000}>\s{0,20})+<\/a>/gi, " ")
    .replace(/<img\b[^<>]{0,2000}>/gi, " ")
    .replace(/<a\b[^<>]{0,2000}>\s{0,20}<\/a>/gi, " ")
    .replace(/\[!\[[^\][\n]{0,300}\]\([^()\n]{0,2000}\)\]\([^()\n]{0,2000}\)/g, " ")
    .replace(/!\[[^\][\n]{0,300}\]\([^()\n]{0,2000}\)/g, " ");
}

const PICTURE_OPEN = /<picture\b[^<>]{0,500}>/gi;
const PICTURE_CLOSE = /<\/picture>/gi;

/**
 * `<picture>…</picture>` replaced by a space where the close is at most 3,000 characters on. Each
 * open is paired with the first close after it, found once for the whole text (a lazy
 * `[\s\S]{0,3000}?` searched up to 3,000 characters from every open).
 */
function cutPictures(text: string): string {
  if (!/<picture/i.test(text)) return text;
  const closes = [...text.matchAll(PICTURE_CLOSE)].map((m) => m.index);
  let out = "";
  let at = 0;
  let c = 0;
  for (const open of text.matchAll(PICTURE_OPEN)) {
    if (open.index < at) continue;
    const inner = open.index + open[0].length;
    while (c < closes.length && (closes[c] as number) < inner) c++;
    const close = closes[c];
    if (close === undefined) break;
    if (close - inner > 3000) continue;
    out += `${text.slice(at, open.index)} `;
    at = close + "</picture>".length;
  }
  return out + text.slice(at);
}

/** A line of markdown/HTML as plain text: tags, emphasis, links and images reduced to their words. */
export function plainText(line: string): string {
  const tagless = stripImages(line).replace(/<[^<>\n]{0,500}>/g, " ");
  const unlinked = replaceEach(tagless, /\[([^\][\n]{0,500})\]\([^()\n]{0,2000}\)/g, (m) => m[1] ?? "")
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/, "")
    .replace(/(\*\*|__|\*|`|~~)/g, "")
    .replace(/^\s{0,3}(\d{1,3}[.)])\s+/, "");
  return replaceEach(unlinked, /(^|\s)_([^_\n]{1,500})_(?=\s|$|[.,:;!?|])/g, (m) => `${m[1]}${m[2]}`)
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

const TITLE_MAX = 100;

/** The first sentence of `text`, without a trailing period or colon, at most 100 characters. */
export function sentence(text: string): string {
  const line = text.trim();
  const first = /^(.{1,600}?[.!?])(?=\s|$)/u.exec(line)?.[1] ?? line;
  const s = first.replace(/[.:]$/, "").trim();
  return s.length <= TITLE_MAX ? s : `${s.slice(0, TITLE_MAX - 1).trimEnd()}…`;
}

/** Whether a line has something to read (a letter or a digit in any script). */
export function hasWords(s: string): boolean {
  return /[\p{L}\p{N}]/u.test(s);
}

/** The first line of `text` with words in it, as plain text (code blocks and HTML comments skipped). */
export function firstWordsLine(text: string, skip: (line: string) => boolean = () => false): string {
  const noComments = stripHtmlComments(text);
  let inFence = false;
  let found = "";
  eachLine(noComments, (raw) => {
    if (/^\s{0,3}(`{3,}|~{3,})/.test(raw)) {
      inFence = !inFence;
      return false;
    }
    // Plain text only drops characters: a line without a letter or digit gets none from it.
    if (inFence || !hasWords(raw) || skip(raw)) return false;
    const line = plainText(raw);
    if (!hasWords(line)) return false;
    found = line;
    return true;
  });
  return found;
}

/**
 * Blank-line runs squeezed, trailing spaces and a trailing `---` rule dropped. Line by line, not
 * with `/[ \t]+$/gm` and `/(\n\s*---\s*)+$/`: on a bot comment of long space runs or many rules
 * those backtrack quadratically (20,000 `\n--- ` lines: 1.7 s; a megabyte hung the worker).
 */
export function tidy(text: string): string {
  return withoutTrailingRules(trimLineEnds(text, " \t").replace(/\n{3,}/g, "\n\n")).trim();
}

/**
 * `text` without the `---`, `***` or `___` lines (and blank lines) that end it; never its first
 * line. Read from the end, as far as the last line that is neither.
 */
function withoutTrailingRules(text: string): string {
  let keep = text.length;
  for (let end = text.length; end > 0; ) {
    const nl = text.lastIndexOf("\n", end - 1);
    if (nl < 0) break;
    const t = text.slice(nl + 1, end).trim();
    if (t === "---" || t === "***" || t === "___") keep = nl;
    else if (t !== "") break;
    end = nl;
  }
  return keep === text.length ? text : text.slice(0, keep);
}
