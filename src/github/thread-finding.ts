import type { ReviewThread, ThreadComment } from "../domain/github.js";
import type { RawFinding } from "../domain/types.js";
import { eachLine } from "../util/lines.js";
import { replaceEach } from "../util/replace-each.js";
import { cleanComment } from "./bots/clean.js";
import { hasWords, stripHtmlComments, suggestionOf } from "./bots/markdown.js";
import { type BotDefaults, botDefaults, parseBotComment } from "./bots/registry.js";
import type { BotFinding } from "./bots/types.js";
import { isFixpointReply, isFixpointText } from "./fixpoint-text.js";
import { parseCategoryTag, parseSeverityTag, stripSeverityTags } from "./severity-tags.js";

/** A PR review thread as a registry finding; `source` is `pr:<thread node id>`. */
export type ThreadFinding = RawFinding & {
  source: `pr:${string}`;
  author: string | null;
  /** A configured bot wrote the thread in a format no adapter knows: which bot, and its first line. */
  botWarning?: { bot: string; firstLine: string };
};

export interface ThreadOptions {
  /** Per-bot default severities (config `bots { … }`). */
  bots?: BotDefaults;
}

const TITLE_MAX = 100;

/**
 * One finding per thread. A bot's first comment is read by its adapter (severity on its own
 * scale, clean title and body, suggestion and agent prompt apart); a person's by the common
 * severity tags (P2 when untagged), its first real sentence as the title. The body keeps the
 * conversation with each author — fixpoint's own replies left out. Current lines are used,
 * the original ones for outdated threads.
 */
export function threadToFinding(thread: ReviewThread, opts: ThreadOptions = {}): ThreadFinding {
  return readThread(thread, opts) ?? personFinding(thread);
}

/**
 * Unresolved threads become findings (outdated ones too: the problem may still be there), except
 * threads whose last word is fixpoint's reply — answered, nothing new — and bot comments that
 * carry no finding (praise).
 */
export function findingsFromThreads(threads: ReviewThread[], opts: ThreadOptions = {}): ThreadFinding[] {
  const out: ThreadFinding[] = [];
  for (const t of threads) {
    if (t.isResolved || t.comments.length === 0 || isAnswered(t)) continue;
    const f = readThread(t, opts);
    if (f) out.push(f);
  }
  return out;
}

/** The thread's last word is fixpoint's reply (by its marker, whatever login posted it). */
export function isAnswered(thread: ReviewThread): boolean {
  const last = thread.comments.at(-1);
  return last !== undefined && isFixpointReply(last.body);
}

function readThread(thread: ReviewThread, opts: ThreadOptions): ThreadFinding | null {
  const first = thread.comments[0];
  if (!first?.authorIsBot) return personFinding(thread);
  const parsed = parseBotComment(
    { author: first.author, authorIsBot: true, body: first.body, path: thread.path, line: thread.line },
    opts.bots ?? botDefaults(),
  );
  if (!parsed.finding) return null;
  const f = parsed.finding;
  const lines = linesOf(thread, f);
  return {
    severity: f.severity,
    category: f.category ?? "pr-comment",
    title: f.title,
    body: [`@${first.author ?? "ghost"}:\n${f.body}`, ...later(thread.comments.slice(1))].join("\n\n"),
    file: thread.path ?? f.path ?? null,
    ...lines,
    suggestedFix: fixHint(f),
    source: `pr:${thread.id}`,
    author: thread.author,
    ...(parsed.warning ? { botWarning: parsed.warning } : {}),
  };
}

function personFinding(thread: ReviewThread): ThreadFinding {
  const firstBody = thread.comments[0]?.body ?? "";
  const lines = linesOf(thread, {});
  return {
    severity: parseSeverityTag(firstBody) ?? "P2",
    category: parseCategoryTag(firstBody),
    title: titleOf(firstBody) || `Review comment on ${thread.path ?? "the pull request"}`,
    body: [
      `@${thread.comments[0]?.author ?? "ghost"}:\n${firstBody.trim()}`,
      ...later(thread.comments.slice(1)),
    ].join("\n\n"),
    file: thread.path,
    ...lines,
    suggestedFix: suggestionOf(firstBody) ?? null,
    source: `pr:${thread.id}`,
    author: thread.author,
  };
}

function linesOf(thread: ReviewThread, f: Pick<BotFinding, "line" | "lineEnd">) {
  const lineEnd = thread.line ?? thread.originalLine ?? f.lineEnd ?? f.line ?? null;
  const lineStart =
    thread.startLine ??
    thread.originalStartLine ??
    ((thread.line ?? thread.originalLine) ? lineEnd : (f.line ?? lineEnd));
  return { lineStart, lineEnd };
}

/** The replies after the first comment, each with its author; fixpoint's own left out, bots' cleaned. */
function later(comments: ThreadComment[]): string[] {
  return comments
    .filter((c) => !isFixpointText(c.body))
    .map((c) => `@${c.author ?? "ghost"}:\n${(c.authorIsBot ? cleanComment(c.body).text : c.body).trim()}`);
}

/**
 * What the bot proposed, for the fixer: its suggestion block and its prompt for AI agents, both
 * untrusted (the fix prompt fences the whole finding) and labelled as hints to check.
 */
export function fixHint(f: Pick<BotFinding, "suggestion" | "agentPrompt">): string | null {
  const parts: string[] = [];
  if (f.suggestion !== undefined) parts.push(f.suggestion);
  if (f.agentPrompt !== undefined)
    parts.push(
      `Hint from the bot's prompt for AI agents (check it against the code first):\n${f.agentPrompt}`,
    );
  return parts.length ? parts.join("\n\n") : null;
}

/**
 * A line made only of italic markers, e.g. CodeRabbit's `_⚠️ Potential issue_ | _🟠 Major_`. The
 * separator is `\s*(?:\|\s*)?`, not `\s*\|?\s*`: that one splits a run of spaces in as many ways
 * as it is long, and a line of markers that fails at its end (`_a_  _a_  … x`) tried them all,
 * each marker multiplying the ways (90 characters: 12 s).
 */
const MARKER_LINE = /^\s*(?:_[^_\n]+_\s*(?:\|\s*)?)+$/u;

/**
 * The first sentence of the first meaningful line, markdown stripped, at most 100 chars. Linear in
 * the comment's length, as anyone who can comment on the pull request writes it.
 */
export function titleOf(markdown: string): string {
  const text = stripHtmlComments(markdown).replace(/```[\s\S]*?(```|$)/g, "\n");
  let title = "";
  eachLine(text, (raw) => {
    // What follows only drops characters: a line without a letter or digit cannot become a title.
    if (!hasWords(raw) || MARKER_LINE.test(raw)) return false;
    const line = stripMarkdown(stripSeverityTags(raw));
    if (!hasWords(line)) return false;
    const sentence = /^(.+?[.!?])(?=\s|$)/u.exec(line)?.[1] ?? line;
    title = truncate(sentence.replace(/[.:]$/, ""), TITLE_MAX);
    return true;
  });
  return title;
}

/**
 * A tag, an image or a link stops at the next character that would open another (`<`, `[`, `(`):
 * otherwise each of a line's many openers without a close scanned to its end (40,000 `[`: 1.5 s).
 */
function stripMarkdown(line: string): string {
  // Captures put back by replaceEach: V8's own `$1` slows past 16,384 matches (replace-each.ts).
  const tagless = line.replace(/<[^<>]{1,500}>/g, " ");
  const imageless = replaceEach(tagless, /!\[([^\][]*)\]\([^()\s]*\)/g, (m) => m[1] ?? "");
  const unlinked = replaceEach(imageless, /\[([^\][]*)\]\([^()\s]*\)/g, (m) => m[1] ?? "")
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/, "")
    .replace(/(\*\*|__|\*|`|~~)/g, "");
  return replaceEach(unlinked, /(^|\s)_([^_]+)_(?=\s|$|[.,:;!?])/g, (m) => `${m[1]}${m[2]}`)
    .replace(/^[\s|:–-]+/, "")
    .replace(/\s+/g, " ")
    .trim();
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}
