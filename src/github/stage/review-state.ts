import type { PullReview, ReviewThread, ThreadComment } from "../../domain/github.js";
import { REPLY_MARKER } from "../render.js";

/** What the PR's own reviewers said about the head fixpoint pushed (`wait-for-review`). */
export type ReviewAnswer =
  | { kind: "waiting" }
  | { kind: "approved"; by: string[] }
  /** `threads`: ids of allowed, unresolved threads with words fixpoint has not answered. */
  | { kind: "changes"; by: string[]; threads: string[] };

/**
 * Judges the PR's answer to `head` (pure). `allowed` is the feedback after the author filter;
 * `rawThreads` are the same threads unfiltered, because fixpoint's own replies are dropped by the
 * filter and are what tells an answered thread from one a reviewer spoke in again.
 *
 * - an allowed, unresolved thread whose last allowed word comes after fixpoint's last reply (or
 *   that fixpoint never answered) → changes;
 * - each allowed reviewer's latest review on `head` (review `commit_id`; COMMENTED does not
 *   change a reviewer's state, as on GitHub; DISMISSED withdraws it): one CHANGES_REQUESTED →
 *   changes, else one APPROVED → approved;
 * - nothing of that → still waiting. Reviews of older heads never count: they judged code that
 *   has changed since.
 */
export function judgeReviews(
  allowed: { reviews: PullReview[]; threads: ReviewThread[] },
  rawThreads: ReviewThread[],
  head: string,
): ReviewAnswer {
  const open = openThreads(allowed.threads, rawThreads);
  const state = new Map<string, PullReview["state"]>();
  for (const r of allowed.reviews) {
    if (r.commitId !== head || r.state === "COMMENTED" || r.state === "PENDING") continue;
    state.set(r.author ?? "ghost", r.state);
  }
  const withState = (s: PullReview["state"]) => [...state].filter(([, v]) => v === s).map(([k]) => k);
  const changesBy = withState("CHANGES_REQUESTED");
  if (open.length > 0 || changesBy.length > 0) {
    const isOpen = new Set(open);
    const threadAuthors = allowed.threads
      .filter((t) => isOpen.has(t.id))
      .map((t) => t.comments.at(-1)?.author ?? "ghost");
    return { kind: "changes", by: [...new Set([...changesBy, ...threadAuthors])], threads: open };
  }
  const approvedBy = withState("APPROVED");
  return approvedBy.length > 0 ? { kind: "approved", by: approvedBy } : { kind: "waiting" };
}

/** Allowed, unresolved threads where an allowed author spoke after fixpoint's last reply. */
export function openThreads(allowed: ReviewThread[], raw: ReviewThread[]): string[] {
  const rawById = new Map(raw.map((t) => [t.id, t] as const));
  const out: string[] = [];
  for (const thread of allowed) {
    if (thread.isResolved || thread.comments.length === 0) continue;
    const all = rawById.get(thread.id)?.comments ?? thread.comments;
    const lastReply = all.findLastIndex((c) => c.body.includes(REPLY_MARKER));
    const allowedKeys = new Set(thread.comments.map(commentKey));
    if (all.slice(lastReply + 1).some((c) => allowedKeys.has(commentKey(c)))) out.push(thread.id);
  }
  return out;
}

function commentKey(c: ThreadComment): string {
  return c.databaseId !== null ? String(c.databaseId) : `${c.createdAt}|${c.author ?? ""}|${c.body}`;
}
