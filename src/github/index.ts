/** The GitHub layer: client, PR feedback ingestion, replies and tech-debt issues (docs/github.md). */

export type * from "../domain/github.js";
export { GITHUB_RETRY, type RetryPolicy } from "../util/retry.js";
export { type AuthorPolicy, createAuthorCheck, type IgnoredAuthor, writeAccessFrom } from "./authors.js";
export {
  adapterFor,
  BOT_ADAPTERS,
  type BotAdapter,
  type BotComment,
  type BotFinding,
  botDefaults,
  parseBotComment,
  parseBotReviewBody,
} from "./bots/registry.js";
export { createGithubClient, DEFAULT_GITHUB_TIMEOUT_MS, type GithubClientOptions } from "./client.js";
export { isGithubTimeout } from "./error-map.js";
export {
  type FilteredFeedback,
  fetchFeedback,
  filterAllowedAuthors,
  filterFeedback,
  findingsFromThreads,
  type PrFeedback,
  type ThreadFinding,
  threadToFinding,
} from "./feedback.js";
export {
  type Disposition,
  findingMarker,
  type PrBodyInput,
  prBody,
  REPLY_MARKER,
  replyBody,
  type TechDebtContext,
  taskMarker,
  techDebtIssue,
} from "./render.js";
export { parseSeverityTag } from "./severity-tags.js";
export {
  fileTechDebtIssues,
  type TechDebtOptions,
  type TechDebtResult,
  techDebtCandidates,
} from "./tech-debt.js";
export { alreadyAnswered, respondToThread, shouldResolve } from "./thread-reply.js";
export { resolveGithubToken } from "./token.js";
