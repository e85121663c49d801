/**
 * What fixpoint reads from and writes to GitHub, in its own words: no octokit type leaves
 * `src/github`. Logins are normalised: a bot's REST login `coderabbitai[bot]` and its GraphQL
 * login `coderabbitai` are both `coderabbitai` with `authorIsBot: true`.
 *
 * Contract of every `GithubClient` method: it either resolves with a typed result or rejects
 * with a `FixpointError("github", …)` whose message a person can act on and whose `retryable`
 * says whether trying again later can help. Every method is bounded by the client's timeout.
 */

export type PullState = "open" | "closed" | "merged";

export interface PullRequest {
  number: number;
  /** GraphQL node id, needed for draft/ready mutations. */
  nodeId: string;
  url: string;
  state: PullState;
  draft: boolean;
  title: string;
  body: string;
  head: string;
  base: string;
  labels: string[];
  author: string | null;
}

export type ReviewState = "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING";

export interface PullReview {
  id: number;
  author: string | null;
  authorIsBot: boolean;
  state: ReviewState;
  body: string;
  submittedAt: string | null;
  /** The head commit the review was submitted on (REST `commit_id`); null when GitHub did not say. */
  commitId?: string | null;
}

export interface ThreadComment {
  databaseId: number | null;
  author: string | null;
  authorIsBot: boolean;
  body: string;
  createdAt: string;
}

/** A review thread as GraphQL `pullRequest.reviewThreads` reports it. */
export interface ReviewThread {
  /** GraphQL node id (`PRRT_…`): what `resolveReviewThread` takes. */
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string | null;
  /** Current lines; null when the thread is outdated. */
  line: number | null;
  startLine: number | null;
  /** Lines in the diff the comment was made on; kept for outdated threads. */
  originalLine: number | null;
  originalStartLine: number | null;
  /** Author of the first comment: who opened the thread. */
  author: string | null;
  authorIsBot: boolean;
  comments: ThreadComment[];
}

/** An inline review comment from the REST API. */
export interface ReviewComment {
  id: number;
  author: string | null;
  authorIsBot: boolean;
  body: string;
  path: string;
  line: number | null;
  startLine: number | null;
  inReplyTo: number | null;
  createdAt: string;
}

/** A conversation comment (REST issue comment) on a PR or issue. */
export interface IssueComment {
  id: number;
  author: string | null;
  authorIsBot: boolean;
  body: string;
  createdAt: string;
  url: string;
}

export interface Issue {
  number: number;
  url: string;
  title: string;
  body: string;
  labels: string[];
  state: "open" | "closed";
}

export type RepoPermission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface CollaboratorPermission {
  permission: RepoPermission;
  /** admin, maintain or write. */
  canWrite: boolean;
}

export interface CreatePullInput {
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
}

export interface UpdatePullInput {
  title?: string;
  body?: string;
  /** true converts to draft, false marks ready for review (both GraphQL). */
  draft?: boolean;
}

export interface GithubClient {
  /** `owner/name`. */
  readonly repo: string;
  getPull(n: number): Promise<PullRequest>;
  /** The open PR for `branch`, else the most recent one of any state, else null. */
  findPullByHead(branch: string): Promise<PullRequest | null>;
  createPull(input: CreatePullInput): Promise<PullRequest>;
  updatePull(n: number, input: UpdatePullInput): Promise<PullRequest>;
  markReadyForReview(n: number): Promise<void>;
  listReviews(n: number): Promise<PullReview[]>;
  listReviewThreads(n: number): Promise<ReviewThread[]>;
  listReviewComments(n: number): Promise<ReviewComment[]>;
  listIssueComments(n: number): Promise<IssueComment[]>;
  replyToReviewComment(n: number, commentId: number, body: string): Promise<ReviewComment>;
  resolveReviewThread(threadId: string): Promise<void>;
  getCollaboratorPermission(login: string): Promise<CollaboratorPermission>;
  listOpenPullsWithLabel(label: string): Promise<PullRequest[]>;
  /** Issues (not PRs) carrying `label`, open and closed, all pages. */
  listIssuesWithLabel(label: string): Promise<Issue[]>;
  /** The first labelled issue whose body contains `marker` (no search API: it lags). */
  searchIssuesByMarker(marker: string, opts: { label: string }): Promise<Issue | null>;
  createIssue(input: { title: string; body: string; labels: string[] }): Promise<Issue>;
  createComment(issueNumber: number, body: string): Promise<IssueComment>;
  /** Adds labels to an issue or pull request (existing labels stay). */
  addLabels(issueNumber: number, labels: string[]): Promise<void>;
}
