import type { Severity } from "../../domain/types.js";
import { findLine } from "../../util/lines.js";
import { cleanComment, dropLine, titleFrom } from "./clean.js";
import { detailsBlocks, plainText, sentence } from "./markdown.js";
import { isMarkerLine } from "./marker-line.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = ["coderabbitai"];
const LEVEL = /(critical|major|minor|trivial|info)(?![a-z])/i;
const KIND = /(potential issue|refactor suggestion|nitpick)/i;

interface Marker {
  severity: Severity | null;
  category: string;
}

/** The severity line's level (Critical/Major/Minor/Trivial) or, without one, its kind. */
export function coderabbitMarker(line: string): Marker | null {
  if (!isMarkerLine(line)) return null;
  const level = scaled("coderabbit", LEVEL.exec(line)?.[1]);
  const kind = KIND.exec(line)?.[1]?.toLowerCase();
  const severity = level ?? scaled("coderabbit", kind);
  if (severity === null && kind === undefined) return null;
  return { severity, category: categoryOf(kind, line) };
}

function categoryOf(kind: string | undefined, line: string): string {
  if (/security/i.test(line)) return "security";
  if (kind === "potential issue") return "correctness";
  if (kind === "refactor suggestion") return "maintainability";
  if (kind === "nitpick") return "style";
  return "pr-comment";
}

/** A line that is only bold text: CodeRabbit's title line. */
const BOLD_LINE = /^\s*\*\*(.{1,500}?)\*\*\s*$/;

/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const cleaned = cleanComment(comment.body);
  const markerLine = findLine(cleaned.text, isMarkerLine);
  const marker = markerLine === undefined ? null : coderabbitMarker(markerLine);
  let text = markerLine === undefined ? cleaned.text : dropLine(cleaned.text, (l) => l === markerLine);
  const boldTitle = findLine(text, (l) => l.trim() !== "");
  const titleLine = boldTitle !== undefined && BOLD_LINE.test(boldTitle) ? boldTitle : undefined;
  const title = titleLine !== undefined ? sentence(plainText(titleLine)) : titleFrom(text);
  if (titleLine !== undefined) text = dropLine(text, (l) => l === titleLine);
  return {
    severity: marker?.severity ?? null,
    title,
    body: text,
    category: marker?.category ?? "pr-comment",
    ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
    ...(cleaned.agentPrompt !== undefined ? { agentPrompt: cleaned.agentPrompt } : {}),
    ...(marker === null ? { unrecognised: true } : {}),
  };
}

/** Review-body sections that hold findings; duplicates restate inline threads and are skipped. */
const SECTIONS: { summary: RegExp; severity: Severity }[] = [
  { summary: /nitpick comments/i, severity: "P3" },
  { summary: /outside (?:the )?diff range comments/i, severity: "P2" },
];

/**
 * The nitpick and outside-diff sections of a review body: `<details>` per section, one nested
 * `<details>` per file (`path (n)`), entries separated by `---`, each opening with
 * `` `12-34`: **Title.** `` and optionally a severity line of its own.
 */
export function parseReviewBody(body: string): BotFinding[] {
  const out: BotFinding[] = [];
  for (const section of detailsBlocks(body.replace(/\r\n?/g, "\n"))) {
    const kind = SECTIONS.find((s) => s.summary.test(section.summary));
    if (!kind) continue;
    for (const file of detailsBlocks(section.inner)) {
      const path = file.summary.replace(/\s*\(\d+\)\s*$/, "").trim();
      for (const entry of file.inner.split(/\n[^\S\n]*---[^\S\n]*\n/)) {
        const f = reviewEntry(entry, path, kind.severity);
        if (f) out.push(f);
      }
    }
  }
  return out;
}

/** Spaces before the head are a line's own (`[^\S\n]`): `^\s*` read a run of blank lines from each of them. */
const ENTRY_HEAD = /^[^\S\n]*`(\d{1,7})(?:\s*-\s*(\d{1,7}))?`\s*:\s*(.*)$/m;

function reviewEntry(entry: string, path: string, sectionSeverity: Severity): BotFinding | null {
  const head = ENTRY_HEAD.exec(entry);
  if (!head) return null;
  const rest = `${head[3] ?? ""}\n${entry.slice(head.index + head[0].length)}`;
  const found = parse({ author: "coderabbitai", authorIsBot: true, body: rest });
  if (!found) return null;
  const start = Number(head[1]);
  const end = head[2] === undefined ? start : Number(head[2]);
  const { unrecognised: _ignored, ...finding } = found;
  return {
    ...finding,
    severity: found.severity ?? sectionSeverity,
    category:
      found.category === "pr-comment" ? (sectionSeverity === "P3" ? "style" : "pr-comment") : found.category,
    ...(path ? { path } : {}),
    line: start,
    lineEnd: end,
  };
}

export const coderabbit: BotAdapter = {
  name: "coderabbit",
  logins: LOGINS,
  detect: (c) =>
    byLogin(c, LOGINS) || /auto-generated (?:comment|reply) by coderabbit/i.test(c.body.slice(-2000)),
  parse,
  parseReviewBody,
};

/** Whether coderabbit wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return coderabbit.detect(comment);
}
