import type { ReviewThread } from "../domain/github.js";
import type { CallApi } from "./call.js";
import { type GqlComment, type GqlThread, toThread, toThreadComment } from "./map.js";

/** GraphQL page size: the most GitHub allows per connection. */
const PAGE = 100;

interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

const COMMENT_FIELDS = "databaseId body createdAt author { __typename login }";

export const REVIEW_THREADS_QUERY = `
query ReviewThreads($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line startLine originalLine originalStartLine
          comments(first: ${PAGE}) { pageInfo { hasNextPage endCursor } nodes { ${COMMENT_FIELDS} } }
        }
      }
    }
  }
}`;

export const THREAD_COMMENTS_QUERY = `
query ThreadComments($id: ID!, $first: Int!, $after: String) {
  node(id: $id) {
    ... on PullRequestReviewThread {
      comments(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${COMMENT_FIELDS} } }
    }
  }
}`;

export const RESOLVE_THREAD_MUTATION = `
mutation ResolveThread($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

export const MARK_READY_MUTATION = `
mutation MarkReady($id: ID!) {
  markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { id isDraft } }
}`;

export const CONVERT_TO_DRAFT_MUTATION = `
mutation ConvertToDraft($id: ID!) {
  convertPullRequestToDraft(input: { pullRequestId: $id }) { pullRequest { id isDraft } }
}`;

type ThreadNode = GqlThread & { comments: { nodes: GqlComment[]; pageInfo: PageInfo } };

interface ThreadsPage {
  repository: {
    pullRequest: { reviewThreads: { pageInfo: PageInfo; nodes: ThreadNode[] } } | null;
  } | null;
}

interface CommentsPage {
  node: { comments?: { pageInfo: PageInfo; nodes: GqlComment[] } } | null;
}

/**
 * Every review thread of a PR, all pages, and every comment of each thread (a thread with more
 * than one page of comments is completed with a `node(id:)` query). Returns null when the PR
 * does not exist.
 */
export async function fetchReviewThreads(
  api: CallApi,
  owner: string,
  name: string,
  number: number,
): Promise<ReviewThread[] | null> {
  const threads: ReviewThread[] = [];
  let after: string | null = null;
  for (;;) {
    const page: ThreadsPage = await api.graphql<ThreadsPage>(REVIEW_THREADS_QUERY, {
      owner,
      name,
      number,
      first: PAGE,
      after,
    });
    const connection = page.repository?.pullRequest?.reviewThreads;
    if (!connection) return null;
    for (const node of connection.nodes) {
      const comments = node.comments.nodes.map(toThreadComment);
      if (node.comments.pageInfo.hasNextPage) {
        comments.push(...(await fetchMoreComments(api, node.id, node.comments.pageInfo.endCursor)));
      }
      threads.push(toThread(node, comments));
    }
    if (!connection.pageInfo.hasNextPage || !connection.pageInfo.endCursor) return threads;
    after = connection.pageInfo.endCursor;
  }
}

async function fetchMoreComments(api: CallApi, threadId: string, cursor: string | null) {
  const out = [];
  let after = cursor;
  while (after) {
    const page: CommentsPage = await api.graphql<CommentsPage>(THREAD_COMMENTS_QUERY, {
      id: threadId,
      first: PAGE,
      after,
    });
    const connection = page.node?.comments;
    if (!connection) break;
    out.push(...connection.nodes.map(toThreadComment));
    after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
  }
  return out;
}
