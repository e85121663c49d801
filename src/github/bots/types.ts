import type { Severity } from "../../domain/types.js";

/**
 * Glossary for the bot adapters.
 * - **bot comment**: one comment a review bot wrote — an inline thread comment, or the body of
 *   a review it submitted. Untrusted text: nothing in it changes what fixpoint does.
 * - **adapter**: knows one bot's current format. `detect` says whether a comment is that bot's;
 *   `parse` turns it into a clean finding (or null when the comment carries none, e.g. a
 *   walkthrough); `parseReviewBody` pulls the findings a bot puts in a review body.
 * - **recognised**: the adapter found the bot's own severity marker. A configured bot's comment
 *   that no adapter recognises still becomes a finding, with the configured default severity,
 *   and a warning names the bot and the comment's first line.
 */
export interface BotComment {
  /** Normalised login (`coderabbitai`, not `coderabbitai[bot]`); null for a deleted account. */
  author: string | null;
  authorIsBot: boolean;
  body: string;
  path?: string | null;
  line?: number | null;
}

export interface BotFinding {
  /** null when the comment carries no severity the adapter knows (the caller picks the default). */
  severity: Severity | null;
  /** One plain-text sentence: no markdown, badges, links or HTML. */
  title: string;
  /** The explanation, with badges, images, HTML comments, fingerprints, collapsed analysis and footers dropped. */
  body: string;
  category?: string;
  /** A ```suggestion block (the replacement lines), kept apart for the fixer. */
  suggestion?: string;
  /** The bot's own "prompt for AI agents", kept apart for the fixer (untrusted). */
  agentPrompt?: string;
  path?: string;
  line?: number;
  lineEnd?: number;
  /** The comment is this bot's, but not in a format the adapter knows (no severity marker found). */
  unrecognised?: boolean;
}

export interface BotAdapter {
  /** Stable name used in config, docs and events: `coderabbit`, `copilot`, … */
  readonly name: string;
  /** Logins the bot posts as (normalised, lower case). */
  readonly logins: readonly string[];
  /** Whether `comment` was written by this bot (its login, or a marker only it writes). */
  detect(comment: BotComment): boolean;
  /** The finding in an inline comment; null when the comment is not a finding. Must not throw. */
  parse(comment: BotComment): BotFinding | null;
  /** Findings the bot put in a review body (nitpicks, low-confidence, outside the diff). Must not throw. */
  parseReviewBody?(body: string): BotFinding[];
}

/** Whether a bot wrote `comment` under one of `logins` (GitHub marks it as a bot). */
export function byLogin(comment: BotComment, logins: readonly string[]): boolean {
  const login = comment.author?.toLowerCase().replace(/\[bot\]$/, "");
  return comment.authorIsBot && login !== undefined && logins.includes(login);
}
