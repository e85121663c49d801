import type { PullReview } from "../../domain/github.js";
import type { RawFinding } from "../../domain/types.js";
import { adapterFor, type BotDefaults, parseBotComment, parseBotReviewBody } from "../bots/registry.js";
import { parseSeverityTag } from "../severity-tags.js";
import { fixHint, titleOf } from "../thread-finding.js";

export interface ReviewFinding {
  finding: RawFinding;
  origin: { source: string; author?: string };
  botWarning?: { bot: string; firstLine: string };
}

/**
 * Findings in review bodies (source `pr-review:<id>`):
 * - a bot's review body is read by its adapter — CodeRabbit's nitpick and outside-diff sections,
 *   Copilot's low-confidence comments, Gemini's findings list, Codex's placed findings, Sourcery's
 *   overall comments — each with its path and lines; a summary or walkthrough without findings
 *   gives none;
 * - a review that asks for changes with a written body is one finding, as a person wrote it —
 *   unless a known bot wrote it: its body summarises its inline comments.
 */
export function reviewFindings(reviews: PullReview[], bots: BotDefaults): ReviewFinding[] {
  const out: ReviewFinding[] = [];
  for (const r of reviews) {
    if (r.body.trim() === "") continue;
    const origin = { source: `pr-review:${r.id}`, ...(r.author ? { author: r.author } : {}) };
    const fromBody = r.authorIsBot
      ? parseBotReviewBody({ author: r.author, authorIsBot: true, body: r.body })
      : [];
    for (const f of fromBody) {
      const lineStart = f.line ?? null;
      out.push({
        finding: {
          severity: f.severity ?? bots.severityOf(r.author),
          category: f.category ?? "review",
          title: f.title,
          body: `@${r.author ?? "ghost"}:\n${f.body}`,
          file: f.path ?? null,
          lineStart,
          lineEnd: f.lineEnd ?? lineStart,
          suggestedFix: fixHint(f),
        },
        origin,
      });
    }
    // A known bot's review body is a summary of its inline comments unless its adapter found
    // findings in it; only people's (and unknown bots') change requests become findings as a whole.
    const summarised =
      r.authorIsBot && adapterFor({ author: r.author, authorIsBot: true, body: r.body })?.parseReviewBody;
    if (fromBody.length === 0 && r.state === "CHANGES_REQUESTED" && !summarised)
      out.push(changesRequested(r, bots, origin));
  }
  return out;
}

function changesRequested(r: PullReview, bots: BotDefaults, origin: ReviewFinding["origin"]): ReviewFinding {
  if (r.authorIsBot) {
    const parsed = parseBotComment({ author: r.author, authorIsBot: true, body: r.body }, bots);
    const f = parsed.finding;
    if (f)
      return {
        finding: {
          severity: f.severity,
          category: f.category ?? "review",
          title: f.title,
          body: `@${r.author ?? "ghost"}:\n${f.body}`,
          file: f.path ?? null,
          lineStart: f.line ?? null,
          lineEnd: f.lineEnd ?? f.line ?? null,
          suggestedFix: fixHint(f),
        },
        origin,
        ...(parsed.warning ? { botWarning: parsed.warning } : {}),
      };
  }
  return {
    finding: {
      severity: parseSeverityTag(r.body) ?? "P2",
      category: "review",
      title: titleOf(r.body) || "Changes requested in a pull request review",
      body: `@${r.author ?? "ghost"}:\n${r.body.trim()}`,
      file: null,
      lineStart: null,
      lineEnd: null,
      suggestedFix: null,
    },
    origin,
  };
}
