import type { Severity } from "../../domain/types.js";
import { parseSeverityTag } from "../severity-tags.js";
import { bugbot } from "./bugbot.js";
import { firstLine } from "./clean.js";
import { coderabbit } from "./coderabbit.js";
import { codex } from "./codex.js";
import { copilot } from "./copilot.js";
import { gemini } from "./gemini.js";
import { parseGeneric } from "./generic.js";
import { greptile } from "./greptile.js";
import { plainText, sentence } from "./markdown.js";
import { qodo } from "./qodo.js";
import { sourcery } from "./sourcery.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

export type { BotAdapter, BotComment, BotFinding } from "./types.js";

/** Every known bot, in detection order (logins first, then markers only that bot writes). */
export const BOT_ADAPTERS: readonly BotAdapter[] = [
  coderabbit,
  copilot,
  codex,
  gemini,
  bugbot,
  sourcery,
  qodo,
  greptile,
];

/** Per configured bot (by login): the severity for its comments that carry none. */
export interface BotDefaults {
  severityOf(login: string | null): Severity;
}

export const DEFAULT_BOT_SEVERITY: Severity = "P2";

export function botDefaults(overrides: Readonly<Record<string, { severity?: Severity }>> = {}): BotDefaults {
  const map = new Map(
    Object.entries(overrides).map(([k, v]) => [k.toLowerCase().replace(/\[bot\]$/, ""), v]),
  );
  return {
    severityOf: (login) => map.get((login ?? "").toLowerCase())?.severity ?? DEFAULT_BOT_SEVERITY,
  };
}

/** The bot's own adapter by login first; a marker only one bot writes second (a renamed app, GHE). */
export function adapterFor(comment: BotComment): BotAdapter | null {
  return (
    BOT_ADAPTERS.find((a) => byLogin(comment, a.logins)) ??
    BOT_ADAPTERS.find((a) => a.detect(comment)) ??
    null
  );
}

export interface ParsedBotComment {
  /** null when the comment carries no finding (a walkthrough, praise). */
  finding: (BotFinding & { severity: Severity }) | null;
  /** The adapter that read it; `generic` when none knew the bot. */
  adapter: string;
  /** Set when the comment is a bot's but in no format fixpoint knows: say so, with its first line. */
  warning?: { bot: string; firstLine: string };
}

/**
 * One bot comment → a clean finding. Never throws and never loses the comment: a parse that
 * fails or yields no title falls back to the comment's first line; a comment no adapter
 * recognises gets the bot's configured default severity and a warning.
 */
export function parseBotComment(
  comment: BotComment,
  defaults: BotDefaults = botDefaults(),
): ParsedBotComment {
  const adapter = adapterFor(comment);
  let parsed: BotFinding | null;
  try {
    parsed = adapter ? adapter.parse(comment) : parseGeneric(comment);
  } catch {
    parsed = null;
    if (adapter) return fallback(comment, adapter.name, defaults);
  }
  const name = adapter?.name ?? "generic";
  if (parsed === null) {
    // A comment with nothing to read is still kept when it is not an adapter's known non-finding.
    return adapter ? { finding: null, adapter: name } : fallback(comment, name, defaults);
  }
  // A bot's own format not found: a common tag (`**High**`, `[P1]`) still counts as a severity.
  const tagged =
    parsed.severity ?? (parsed.unrecognised ? parseSeverityTag(comment.body.slice(0, 4000)) : null);
  const severity = tagged ?? defaults.severityOf(comment.author);
  const unrecognised = parsed.unrecognised === true && tagged === null;
  const { unrecognised: _flag, ...rest } = parsed;
  const finding = {
    ...rest,
    severity,
    title: parsed.title || sentence(plainText(firstLine(comment.body))) || fallbackTitle(comment),
    // Nothing left after the clean-up (an image, markup only): the comment itself is kept.
    body: parsed.body || comment.body.trim(),
  };
  const out: ParsedBotComment = { finding, adapter: name };
  if (unrecognised) out.warning = { bot: comment.author ?? "ghost", firstLine: firstLine(comment.body) };
  return out;
}

function fallback(comment: BotComment, adapter: string, defaults: BotDefaults): ParsedBotComment {
  const line = firstLine(comment.body);
  return {
    adapter,
    finding: {
      severity: defaults.severityOf(comment.author),
      title: sentence(plainText(line)) || fallbackTitle(comment),
      body: comment.body.trim(),
      category: "pr-comment",
    },
    warning: { bot: comment.author ?? "ghost", firstLine: line },
  };
}

function fallbackTitle(comment: BotComment): string {
  return `Comment from ${comment.author ?? "a bot"}${comment.path ? ` on ${comment.path}` : ""}`;
}

/** Findings a bot put in a review body; [] for summaries and walkthroughs without any. Never throws. */
export function parseBotReviewBody(comment: BotComment): BotFinding[] {
  const adapter = adapterFor(comment);
  if (!adapter?.parseReviewBody) return [];
  try {
    return adapter.parseReviewBody(comment.body);
  } catch {
    return [];
  }
}
