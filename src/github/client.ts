import type { GithubClient, PullRequest } from "../domain/github.js";
import { FixpointError } from "../errors.js";
import { type Clock, systemClock } from "../util/clock.js";
import { GITHUB_RETRY, type RetryPolicy } from "../util/retry.js";
import { type CallApi, type CallRunner, createCallRunner, isHttpStatus } from "./call.js";
import {
  CONVERT_TO_DRAFT_MUTATION,
  fetchReviewThreads,
  MARK_READY_MUTATION,
  RESOLVE_THREAD_MUTATION,
} from "./graphql-ops.js";
import { toIssue, toIssueComment, toPermission, toPull, toReview, toReviewComment } from "./map.js";

export interface GithubClientOptions {
  /** `owner/name`. */
  repo: string;
  /** REST root: `https://api.github.com` (default), `http://host/api/v3` (GHE), or a test server. */
  baseUrl?: string;
  token: string;
  /** Bound on each method call, its pages and retries included; default 30 s. */
  timeoutMs?: number;
  clock?: Clock;
  /** Jitter source in [0, 1). */
  random?: () => number;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

export const DEFAULT_GITHUB_TIMEOUT_MS = 30_000;
const PER_PAGE = 100;

/**
 * The GitHub client over REST (`@octokit/rest`) and GraphQL (`@octokit/graphql`). GraphQL goes
 * to `<base>/graphql`, or `http://host/api/graphql` for a GHE `…/api/v3` base.
 */
export function createGithubClient(opts: GithubClientOptions): GithubClient {
  const [owner, name, extra] = opts.repo.split("/");
  if (!owner || !name || extra !== undefined) {
    throw new FixpointError("config", `GitHub repository must be "owner/name", got "${opts.repo}"`);
  }
  const call = createCallRunner({
    repo: opts.repo,
    baseUrl: (opts.baseUrl ?? "https://api.github.com").replace(/\/+$/, ""),
    token: opts.token,
    timeoutMs: opts.timeoutMs ?? DEFAULT_GITHUB_TIMEOUT_MS,
    clock: opts.clock ?? systemClock,
    random: opts.random ?? Math.random,
    policy: { ...GITHUB_RETRY, ...opts.retry },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const r = { owner, repo: name };

  const getPull = (api: CallApi, n: number) =>
    api.octokit.rest.pulls.get({ ...r, pull_number: n }).then((res) => toPull(res.data));

  const issues = createIssueMethods(call, r);

  return {
    repo: opts.repo,
    getPull: (n) => call({ action: `read pull request #${n}`, ...pr(n) }, (api) => getPull(api, n)),

    findPullByHead: (branch) =>
      call({ action: `look up the pull request for ${branch}` }, async ({ octokit }) => {
        const all = await octokit.paginate(octokit.rest.pulls.list, {
          ...r,
          state: "all",
          head: `${owner}:${branch}`,
          per_page: PER_PAGE,
        });
        const pulls = all.map(toPull).filter((p) => p.head === branch);
        return pulls.find((p) => p.state === "open") ?? latest(pulls);
      }),

    createPull: (input) =>
      call({ action: "create pull request", ...prWrite }, async ({ octokit }) =>
        toPull((await octokit.rest.pulls.create({ ...r, ...input })).data),
      ),

    updatePull: (n, input) =>
      call({ action: `update pull request #${n}`, ...pr(n), ...prWrite }, async (api) => {
        const { title, body } = input;
        let pull =
          title === undefined && body === undefined
            ? await getPull(api, n)
            : toPull(
                (
                  await api.octokit.rest.pulls.update({
                    ...r,
                    pull_number: n,
                    ...(title === undefined ? {} : { title }),
                    ...(body === undefined ? {} : { body }),
                  })
                ).data,
              );
        if (input.draft !== undefined && input.draft !== pull.draft) {
          const mutation = input.draft ? CONVERT_TO_DRAFT_MUTATION : MARK_READY_MUTATION;
          await api.graphql(mutation, { id: pull.nodeId });
          pull = { ...pull, draft: input.draft };
        }
        return pull;
      }),

    markReadyForReview: (n) =>
      call({ action: `mark pull request #${n} ready for review`, ...pr(n), ...prWrite }, async (api) => {
        const pull = await getPull(api, n);
        if (pull.draft) await api.graphql(MARK_READY_MUTATION, { id: pull.nodeId });
      }),

    ...createReviewMethods(call, r),

    getCollaboratorPermission: (login) =>
      call({ action: `read the permission of ${login}` }, async ({ octokit }) => {
        try {
          const res = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...r, username: login });
          const permission = toPermission(res.data);
          return { permission, canWrite: ["admin", "maintain", "write"].includes(permission) };
        } catch (e) {
          // GitHub answers 404 for a login that is no user (or no longer one): no access.
          if (isHttpStatus(e, 404)) return { permission: "none" as const, canWrite: false };
          throw e;
        }
      }),

    listOpenPullsWithLabel: (label) =>
      call({ action: `list open pull requests labelled ${label}` }, async ({ octokit }) =>
        (await octokit.paginate(octokit.rest.pulls.list, { ...r, state: "open", per_page: PER_PAGE }))
          .map(toPull)
          .filter((p) => p.labels.includes(label)),
      ),

    ...issues,
  };
}

const pr = (n: number) => ({ subject: `pull request #${n}` });
const prWrite = { write: "pull_requests" } as const;

/** Reading reviews, threads and comments of a pull request, and answering and resolving threads. */
function createReviewMethods(
  call: CallRunner,
  r: { owner: string; repo: string },
): Pick<
  GithubClient,
  | "listReviews"
  | "listReviewThreads"
  | "listReviewComments"
  | "listIssueComments"
  | "replyToReviewComment"
  | "resolveReviewThread"
> {
  return {
    listReviews: (n) =>
      call({ action: `read reviews of pull request #${n}`, ...pr(n) }, async ({ octokit }) =>
        (
          await octokit.paginate(octokit.rest.pulls.listReviews, { ...r, pull_number: n, per_page: PER_PAGE })
        ).map(toReview),
      ),

    listReviewThreads: (n) =>
      call({ action: `read review threads of pull request #${n}`, ...pr(n) }, async (api) => {
        const threads = await fetchReviewThreads(api, r.owner, r.repo, n);
        if (threads === null)
          throw new FixpointError("github", `pull request #${n} not found in ${r.owner}/${r.repo}`);
        return threads;
      }),

    listReviewComments: (n) =>
      call({ action: `read inline comments of pull request #${n}`, ...pr(n) }, async ({ octokit }) =>
        (
          await octokit.paginate(octokit.rest.pulls.listReviewComments, {
            ...r,
            pull_number: n,
            per_page: PER_PAGE,
          })
        ).map(toReviewComment),
      ),

    listIssueComments: (n) =>
      call(
        { action: `read comments of #${n}`, subject: `issue or pull request #${n}` },
        async ({ octokit }) =>
          (
            await octokit.paginate(octokit.rest.issues.listComments, {
              ...r,
              issue_number: n,
              per_page: PER_PAGE,
            })
          ).map(toIssueComment),
      ),

    replyToReviewComment: (n, commentId, body) =>
      call(
        {
          action: `reply to review comment ${commentId}`,
          subject: `review comment ${commentId}`,
          ...prWrite,
        },
        async ({ octokit }) =>
          toReviewComment(
            (
              await octokit.rest.pulls.createReplyForReviewComment({
                ...r,
                pull_number: n,
                comment_id: commentId,
                body,
              })
            ).data,
          ),
      ),

    resolveReviewThread: (threadId) =>
      call(
        { action: `resolve review thread ${threadId}`, subject: `review thread ${threadId}`, ...prWrite },
        async (api) => {
          await api.graphql(RESOLVE_THREAD_MUTATION, { threadId });
        },
      ),
  };
}

function latest(pulls: PullRequest[]): PullRequest | null {
  return pulls.reduce<PullRequest | null>(
    (best, p) => (best === null || p.number > best.number ? p : best),
    null,
  );
}

function createIssueMethods(
  call: CallRunner,
  r: { owner: string; repo: string },
): Pick<
  GithubClient,
  "listIssuesWithLabel" | "searchIssuesByMarker" | "createIssue" | "createComment" | "addLabels"
> {
  const listIssuesWithLabel = (label: string) =>
    call({ action: `list issues labelled ${label}` }, async ({ octokit }) =>
      (
        await octokit.paginate(octokit.rest.issues.listForRepo, {
          ...r,
          labels: label,
          state: "all",
          per_page: PER_PAGE,
        })
      )
        .filter((i) => !i.pull_request)
        .map(toIssue),
    );
  return {
    listIssuesWithLabel,
    searchIssuesByMarker: async (marker, { label }) =>
      (await listIssuesWithLabel(label)).find((i) => i.body.includes(marker)) ?? null,
    createIssue: (input) =>
      call({ action: "create issue", write: "issues" }, async ({ octokit }) =>
        toIssue((await octokit.rest.issues.create({ ...r, ...input })).data),
      ),
    addLabels: (issueNumber, labels) =>
      call(
        {
          action: `label #${issueNumber}`,
          subject: `issue or pull request #${issueNumber}`,
          write: "issues",
        },
        async ({ octokit }) => {
          await octokit.rest.issues.addLabels({ ...r, issue_number: issueNumber, labels });
        },
      ),
    createComment: (issueNumber, body) =>
      call(
        {
          action: `comment on #${issueNumber}`,
          subject: `issue or pull request #${issueNumber}`,
          write: "issues",
        },
        async ({ octokit }) =>
          toIssueComment(
            (await octokit.rest.issues.createComment({ ...r, issue_number: issueNumber, body })).data,
          ),
      ),
  };
}
