import type { ReviewThread } from "../domain/github.js";
import type { RawFinding } from "../domain/types.js";
import { parseCategoryTag, parseSeverityTag, stripSeverityTags } from "./severity-tags.js";

/** A PR review thread as a registry finding; `source` is `pr:<thread node id>`. */
export type ThreadFinding = RawFinding & { source: `pr:${string}`; author: string | null };

const TITLE_MAX = 100;

/**
 * One finding per thread. Severity is the reviewer's own tag on the first comment (P2 when
 * untagged); the title is the first real sentence of that comment; the body keeps every
 * comment with its author so the fixer sees the whole conversation. A ```suggestion block
 * becomes the suggested fix. Current lines are used, the original ones for outdated threads.
 */
export function threadToFinding(thread: ReviewThread): ThreadFinding {
  const first = thread.comments[0];
  const firstBody = first?.body ?? "";
  const lineEnd = thread.line ?? thread.originalLine;
  const lineStart = thread.startLine ?? thread.originalStartLine ?? lineEnd;
  return {
    severity: parseSeverityTag(firstBody) ?? "P2",
    category: parseCategoryTag(firstBody),
    title: titleOf(firstBody) || `Review comment on ${thread.path ?? "the pull request"}`,
    body: thread.comments.map((c) => `@${c.author ?? "ghost"}:\n${c.body.trim()}`).join("\n\n"),
    file: thread.path,
    lineStart,
    lineEnd,
    suggestedFix: suggestionOf(firstBody),
    source: `pr:${thread.id}`,
    author: thread.author,
  };
}

/** Unresolved threads become findings; outdated ones too (the problem may still be there). */
export function findingsFromThreads(threads: ReviewThread[]): ThreadFinding[] {
  return threads.filter((t) => !t.isResolved && t.comments.length > 0).map(threadToFinding);
}

/** A line made only of italic markers, e.g. CodeRabbit's `_⚠️ Potential issue_ | _🟠 Major_`. */
const MARKER_LINE = /^\s*(?:_[^_\n]+_\s*\|?\s*)+$/u;

/** The first sentence of the first meaningful line, markdown stripped, at most 100 chars. */
export function titleOf(markdown: string): string {
  const text = markdown.replace(/<!--[\s\S]*?-->/g, "").replace(/```[\s\S]*?(```|$)/g, "\n");
  for (const raw of text.split("\n")) {
    if (MARKER_LINE.test(raw)) continue;
    const line = stripMarkdown(stripSeverityTags(raw));
    if (!/[\p{L}\p{N}]/u.test(line)) continue;
    const sentence = /^(.+?[.!?])(?=\s|$)/u.exec(line)?.[1] ?? line;
    return truncate(sentence.replace(/[.:]$/, ""), TITLE_MAX);
  }
  return "";
}

function stripMarkdown(line: string): string {
  return line
    .replace(/<[^>]+>/g, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/, "")
    .replace(/(\*\*|__|\*|`|~~)/g, "")
    .replace(/(^|\s)_([^_]+)_(?=\s|$|[.,:;!?])/g, "$1$2")
    .replace(/^[\s|:–-]+/, "")
    .replace(/\s+/g, " ")
    .trim();
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

function suggestionOf(markdown: string): string | null {
  const m = /```suggestion[^\n]*\n([\s\S]*?)```/.exec(markdown);
  return m?.[1] === undefined ? null : m[1].replace(/\n$/, "");
}
