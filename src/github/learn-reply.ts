import type { ReviewThread } from "../domain/github.js";
import { isFixpointText } from "./fixpoint-text.js";
import { type ThreadFinding, type ThreadOptions, threadToFinding } from "./thread-finding.js";

/**
 * Teaching fixpoint from a PR (issue 16, docs/github.md): a person answers a review bot's thread
 * with a reply whose first line starts `fixpoint: learn` or `@fixpoint learn`, followed by the
 * learning (on that line and the lines after it):
 *
 *     @fixpoint learn inputs are validated at the boundary; library code does not re-check types
 *
 * The thread's finding is dismissed and the text becomes a learning scoped to the thread's file.
 * Only replies that survived the author filter (allowed authors, `filterFeedback`) are read, and
 * only a person's (never a bot's), so text from anyone else never becomes a learning.
 */
const LEARN = /^\s*(?:fixpoint:|@fixpoint)\s+learn\b[:\s]*/i;
/** A learning is a short statement; longer replies are cut here. */
export const MAX_LEARNING_CHARS = 2000;

/** The learning a reply teaches, or null when it is not a learn reply (or teaches nothing). */
export function parseLearnReply(body: string): string | null {
  const text = body.replace(/\r\n?/g, "\n").replace(/^\s*\n/, "");
  const m = LEARN.exec(text);
  if (!m) return null;
  const rest = text.slice(m[0].length).trim();
  if (rest === "") return null;
  return rest.length > MAX_LEARNING_CHARS ? `${rest.slice(0, MAX_LEARNING_CHARS - 1)}…` : rest;
}

export interface ThreadLearning {
  /** The reply's id (GitHub's database id), for a once-only marker. */
  commentId: number | null;
  threadId: string;
  author: string;
  text: string;
  /** The bot's finding the reply answers: the learning's origin. */
  finding: ThreadFinding;
}

/** Learn replies by people in threads a bot opened; the last one of a thread wins. */
export function learningsFromThreads(
  threads: readonly ReviewThread[],
  opts: ThreadOptions = {},
): ThreadLearning[] {
  const out: ThreadLearning[] = [];
  for (const t of threads) {
    if (t.comments[0]?.authorIsBot !== true) continue;
    let taught: { comment: ReviewThread["comments"][number]; author: string; text: string } | null = null;
    for (const c of t.comments.slice(1)) {
      if (c.authorIsBot || c.author === null || isFixpointText(c.body)) continue;
      const text = parseLearnReply(c.body);
      if (text !== null) taught = { comment: c, author: c.author, text };
    }
    // The thread is read into a finding once, for the reply that wins, not once per reply.
    if (taught)
      out.push({
        commentId: taught.comment.databaseId,
        threadId: t.id,
        author: taught.author,
        text: taught.text,
        finding: threadToFinding(t, opts),
      });
  }
  return out;
}
