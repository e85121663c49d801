import { parseCategoryTag, parseSeverityTag, stripSeverityTags } from "../severity-tags.js";
import { cleanComment, titleFrom } from "./clean.js";
import { plainText } from "./markdown.js";
import type { BotComment, BotFinding } from "./types.js";

/**
 * Any other bot: a severity only when it tags one in a common dialect (`**Critical**`,
 * `[P1]`, `severity: high`, …); otherwise the comment is unrecognised and the caller uses the
 * bot's configured default.
 */
export function parseGeneric(comment: BotComment): BotFinding | null {
  const cleaned = cleanComment(comment.body);
  const severity = parseSeverityTag(cleaned.text) ?? parseSeverityTag(comment.body.slice(0, 4000));
  const title = titleFrom(cleaned.text, (l) => plainText(stripSeverityTags(l)) === "");
  return {
    severity,
    title:
      title.replace(
        /^\W*\b(?:critical|blocker|major|high|medium|minor|low|nitpick|nit|trivial|p[0-3])\b\s*[:\-–]?\s*/iu,
        "",
      ) || title,
    body: cleaned.text,
    category: parseCategoryTag(cleaned.text),
    ...(cleaned.suggestion !== undefined ? { suggestion: cleaned.suggestion } : {}),
    ...(cleaned.agentPrompt !== undefined ? { agentPrompt: cleaned.agentPrompt } : {}),
    ...(severity === null ? { unrecognised: true } : {}),
  };
}
