import type { GithubClient, IssueComment, PullReview, ReviewThread } from "../domain/github.js";
import { FixpointError } from "../errors.js";
import { type Clock, systemClock } from "../util/clock.js";
import {
  type Authored,
  type AuthorPolicy,
  createAuthorCheck,
  filterAllowedAuthors,
  type IgnoredAuthor,
  mergeIgnored,
} from "./authors.js";
import { formatDuration, isGithubTimeout } from "./error-map.js";
import { isFixpointText } from "./fixpoint-text.js";

export type { AuthorPolicy, IgnoredAuthor } from "./authors.js";
export { filterAllowedAuthors } from "./authors.js";
export { findingsFromThreads, isAnswered, type ThreadFinding, threadToFinding } from "./thread-finding.js";

/** What a PR says about itself: review summaries, review threads, conversation comments. */
export interface PrFeedback {
  reviews: PullReview[];
  threads: ReviewThread[];
  conversation: IssueComment[];
  /** true when some part was not read in time: the run goes on with what there is. */
  timedOut: boolean;
  /** One sentence saying what is missing and why; set whenever a part is missing. */
  partialReason?: string;
}

type FeedbackClient = Pick<GithubClient, "listReviews" | "listReviewThreads" | "listIssueComments">;

interface Slot<T> {
  label: string;
  done: boolean;
  value?: T;
  error?: unknown;
  promise: Promise<void>;
}

function slot<T>(label: string, p: Promise<T>): Slot<T> {
  const s: Slot<T> = { label, done: false, promise: Promise.resolve() };
  // Settles, never rejects: a part still running when the deadline passes must not surface
  // later as an unhandled rejection.
  s.promise = p.then(
    (value) => {
      s.value = value;
      s.done = true;
    },
    (error: unknown) => {
      s.error = error;
      s.done = true;
    },
  );
  return s;
}

/**
 * Reads the three parts in parallel within `timeoutMs` (seed 004: 30 s). A part that is late or
 * failed in a way a retry could fix is left out and named in `partialReason`; an error that
 * will not go away by waiting (bad token, no such PR) is thrown.
 */
export async function fetchFeedback(
  client: FeedbackClient,
  prNumber: number,
  opts: { timeoutMs: number; clock?: Clock },
): Promise<PrFeedback> {
  const clock = opts.clock ?? systemClock;
  const reviews = slot("reviews", client.listReviews(prNumber));
  const threads = slot("review threads", client.listReviewThreads(prNumber));
  const conversation = slot("conversation comments", client.listIssueComments(prNumber));
  const parts = [reviews, threads, conversation];
  const stop = new AbortController();
  await Promise.race([Promise.all(parts.map((p) => p.promise)), clock.sleep(opts.timeoutMs, stop.signal)]);
  stop.abort();

  const fatal = parts.find(
    (p) => p.error !== undefined && !(p.error instanceof FixpointError && p.error.retryable),
  );
  if (fatal) throw fatal.error;
  const missing = parts.filter((p) => !p.done || p.error !== undefined);
  const timedOut = missing.some((p) => !p.done || isGithubTimeout(p.error));
  const result: PrFeedback = {
    reviews: reviews.value ?? [],
    threads: threads.value ?? [],
    conversation: conversation.value ?? [],
    timedOut,
  };
  if (missing.length > 0)
    result.partialReason = partialReason(missing, timedOut, opts.timeoutMs, reviews.value !== undefined);
  return result;
}

function partialReason(
  missing: Slot<unknown>[],
  timedOut: boolean,
  timeoutMs: number,
  haveReviews: boolean,
): string {
  const names = missing.map((p) => p.label).join(", ");
  const why = timedOut
    ? `GitHub did not answer within ${formatDuration(timeoutMs)}`
    : `GitHub failed: ${missing.map((p) => (p.error instanceof Error ? p.error.message : "unknown error")).join("; ")}`;
  const goOn = haveReviews ? "continuing with the review summary" : "continuing without PR feedback";
  return `${why}; ${names} not read, ${goOn}`;
}

export interface FilteredFeedback {
  feedback: PrFeedback;
  /** Authors whose comments were dropped, with how many. Their text never reaches an agent. */
  ignored: IgnoredAuthor[];
}

/**
 * Drops everything not written by an allowed author: reviews and conversation comments by
 * their author, threads by who opened them, and — inside kept threads — replies by others.
 */
export async function filterFeedback(feedback: PrFeedback, policy: AuthorPolicy): Promise<FilteredFeedback> {
  const authorCheck = createAuthorCheck(policy);
  // fixpoint's own text (its replies, notices) is neither feedback nor "another author".
  const check = async (item: Authored & { body?: string }) =>
    item.body !== undefined && isFixpointText(item.body) ? true : authorCheck(item);
  const notOurs = <T extends { body: string }>(items: T[]) => items.filter((i) => !isFixpointText(i.body));
  const reviews = await filterAllowedAuthors(notOurs(feedback.reviews), check);
  const conversation = await filterAllowedAuthors(notOurs(feedback.conversation), check);
  const threads = await filterAllowedAuthors(feedback.threads, authorCheck);
  const kept: ReviewThread[] = [];
  const replies: IgnoredAuthor[][] = [];
  for (const thread of threads.allowed) {
    // fixpoint's replies stay in the thread (a thread answered last by fixpoint is done); their
    // text never reaches an agent (thread-finding.ts leaves it out of the finding).
    const comments = await filterAllowedAuthors(thread.comments, check);
    kept.push({ ...thread, comments: comments.allowed });
    replies.push(comments.ignored);
  }
  return {
    feedback: { ...feedback, reviews: reviews.allowed, conversation: conversation.allowed, threads: kept },
    ignored: mergeIgnored(reviews.ignored, conversation.ignored, threads.ignored, ...replies),
  };
}
