import type { GithubConfig } from "../../config/types.js";
import type { Clock } from "../../domain/clock.js";
import type { GithubClient } from "../../domain/github.js";
import type { Store } from "../../domain/store.js";
import { writeAccessFrom } from "../authors.js";
import { botDefaults } from "../bots/registry.js";
import { fetchFeedback, filterFeedback, findingsFromThreads } from "../feedback.js";
import { reviewFindings } from "./review-findings.js";

/**
 * Whether a PR has feedback fixpoint has not answered: an unresolved thread from an allowed
 * author whose last word is not fixpoint's reply, or a review (changes requested, or a bot's
 * review body with findings) that no earlier `ingest` read (marker `gh-review:<pr>:<id>`).
 * A rerun with nothing new must create no task, push nothing and reply nothing.
 */
export async function hasNewFeedback(
  client: GithubClient,
  store: Pick<Store, "getMarker">,
  config: GithubConfig,
  pr: number,
  clock: Clock,
): Promise<boolean> {
  const raw = await fetchFeedback(client, pr, { timeoutMs: config.commentTimeoutMs, clock });
  // Feedback we could not read might be new: do not call it "nothing new".
  if (raw.partialReason) return true;
  const { feedback } = await filterFeedback(raw, {
    allowAuthors: config.allowAuthors,
    bots: config.bots,
    hasWriteAccess: writeAccessFrom(client),
  });
  const bots = botDefaults(config.botSettings);
  if (findingsFromThreads(feedback.threads, { bots }).length > 0) return true;
  const unread = [];
  for (const r of feedback.reviews)
    if ((await store.getMarker(reviewReadKey(pr, r.id))) === null) unread.push(r);
  return reviewFindings(unread, bots).length > 0;
}

/** Set by `ingest` for every review it read, so a rerun knows which reviews are new. */
export function reviewReadKey(pr: number, reviewId: number): string {
  return `gh-review:${pr}:${reviewId}`;
}
