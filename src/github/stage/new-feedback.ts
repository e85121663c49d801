import type { GithubConfig } from "../../config/types.js";
import type { Clock } from "../../domain/clock.js";
import type { GithubClient } from "../../domain/github.js";
import { writeAccessFrom } from "../authors.js";
import { botDefaults } from "../bots/registry.js";
import { fetchFeedback, filterFeedback, findingsFromThreads } from "../feedback.js";
import { reviewFindings } from "./review-findings.js";

/**
 * Whether a PR has feedback fixpoint has not answered: an unresolved thread from an allowed
 * author whose last word is not fixpoint's reply, or a review (changes requested, or a bot's
 * review body with findings) submitted after `since` (ms; the previous rework task's creation).
 * A rerun with nothing new must create no task, push nothing and reply nothing.
 */
export async function hasNewFeedback(
  client: GithubClient,
  config: GithubConfig,
  pr: number,
  since: number,
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
  const recent = feedback.reviews.filter((r) => r.submittedAt === null || Date.parse(r.submittedAt) > since);
  return reviewFindings(recent, bots).length > 0;
}
