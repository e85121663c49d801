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
  const open = openOnes(allowed.threads, rawThreads);
  const state = new Map<string, PullReview["state"]>();
  for (const r of allowed.reviews) {
    if (r.commitId !== head || r.state === "COMMENTED" || r.state === "PENDING") continue;
    state.set(r.author ?? "ghost", r.state);
  }
  const withState = (s: PullReview["state"]) => [...state].filter(([, v]) => v === s).map(([k]) => k);
  const changesBy = withState("CHANGES_REQUESTED");
  if (open.length > 0 || changesBy.length > 0) {
    const by = new Set(changesBy);
    for (const t of open) by.add(t.comments.at(-1)?.author ?? "ghost");
    return { kind: "changes", by: [...by], threads: open.map((t) => t.id) };
  }
  const approvedBy = withState("APPROVED");
  return approvedBy.length > 0 ? { kind: "approved", by: approvedBy } : { kind: "waiting" };
}

/** Allowed, unresolved threads where an allowed author spoke after fixpoint's last reply. */
export function openThreads(allowed: ReviewThread[], raw: ReviewThread[]): string[] {
  return openOnes(allowed, raw).map((t) => t.id);
}

/** openThreads' threads (the allowed ones), in their order. */
function openOnes(allowed: ReviewThread[], raw: ReviewThread[]): ReviewThread[] {
  const rawOf = rawLookup(raw);
  const out: ReviewThread[] = [];
  for (const thread of allowed) {
    if (thread.isResolved || thread.comments.length === 0) continue;
    const all = rawOf(thread.id)?.comments ?? thread.comments;
    const lastReply = all.findLastIndex((c) => c.body.includes(REPLY_MARKER));
    if (allowedSpokeAfter(all, lastReply, thread.comments)) out.push(thread);
  }
  return out;
}

/**
 * The raw thread of an id. The allowed threads are the raw ones filtered, in the same order, so
 * each is found by walking on from the one before; only a thread not ahead makes the map of every
 * thread (a map of 20,000 threads costs 7 times as much per thread as one of 2,000 here).
 */
function rawLookup(raw: ReviewThread[]): (id: string) => ReviewThread | undefined {
  let next = 0;
  let byId: Map<string, ReviewThread> | null = null;
  return (id) => {
    if (byId === null) {
      while (next < raw.length) {
        const t = raw[next++] as ReviewThread;
        if (t.id === id) return t;
      }
      byId = new Map();
      for (const t of raw) byId.set(t.id, t);
    }
    return byId.get(id);
  };
}

/** Past this many comments a thread's allowed ones are looked up by key, not compared one by one. */
const COMPARE_BELOW = 16;

/**
 * Whether a comment after `lastReply` is one of `allowed`. A thread holds a few comments: they
 * are compared in place, so a PR of 20,000 threads makes no sets and slices per thread (garbage
 * that made every young collection walk the listing's 20,000 entries again).
 */
function allowedSpokeAfter(all: ThreadComment[], lastReply: number, allowed: ThreadComment[]): boolean {
  if (allowed.length >= COMPARE_BELOW) {
    const keys = new Set(allowed.map(commentKey));
    for (let i = lastReply + 1; i < all.length; i++)
      if (keys.has(commentKey(all[i] as ThreadComment))) return true;
    return false;
  }
  for (let i = lastReply + 1; i < all.length; i++) {
    const c = all[i] as ThreadComment;
    for (const a of allowed) if (sameComment(a, c)) return true;
  }
  return false;
}

/** Whether two comments have the same commentKey, without making either key. */
function sameComment(a: ThreadComment, b: ThreadComment): boolean {
  if (a.databaseId !== null || b.databaseId !== null) return a.databaseId === b.databaseId;
  return a.createdAt === b.createdAt && (a.author ?? "") === (b.author ?? "") && a.body === b.body;
}

function commentKey(c: ThreadComment): string {
  return c.databaseId !== null ? String(c.databaseId) : `${c.createdAt}|${c.author ?? ""}|${c.body}`;
}
