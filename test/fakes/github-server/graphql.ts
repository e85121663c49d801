/**
 * A loose GraphQL endpoint: no parser, it dispatches on the root field or mutation the query
 * names, reads arguments from literals or `$variables`, and honours `first`/`after` cursors.
 * It answers only what the fixpoint client asks.
 */
import { gqlComment } from "./json.js";
import type { Reply } from "./rest.js";
import type { FakeComment, FakeThread, FakeWorld } from "./state.js";

export const GRAPHQL_OPS = [
  "resolveReviewThread",
  "markPullRequestReadyForReview",
  "convertPullRequestToDraft",
  "reviewThreads",
  "node",
] as const;
export type GraphqlOp = (typeof GRAPHQL_OPS)[number];

export function graphqlOp(query: string): GraphqlOp | undefined {
  return GRAPHQL_OPS.find((op) => new RegExp(`\\b${op}\\s*\\(`).test(query));
}

type Vars = Record<string, unknown>;

/** The value of `arg` in the first `field(…)` of the query, resolving `$variables`. */
function argOf(query: string, field: string, arg: string, vars: Vars): unknown {
  const call = new RegExp(`\\b${field}\\s*\\(([^)]*)\\)`).exec(query)?.[1];
  if (call === undefined) return undefined;
  const raw = new RegExp(`\\b${arg}\\s*:\\s*(\\$\\w+|"[^"]*"|-?\\d+|null)`).exec(call)?.[1];
  if (raw === undefined || raw === "null") return undefined;
  if (raw.startsWith("$")) return vars[raw.slice(1)] ?? undefined;
  if (raw.startsWith('"')) return raw.slice(1, -1);
  return Number(raw);
}

const cursor = (i: number) => Buffer.from(`cursor:${i}`).toString("base64");
const fromCursor = (c: unknown) =>
  typeof c === "string" ? Number(Buffer.from(c, "base64").toString("utf8").replace("cursor:", "")) + 1 : 0;

/** A connection page: `first` items after the cursor. */
function connection<T, U>(items: T[], first: unknown, after: unknown, map: (t: T) => U) {
  const start = fromCursor(after);
  const size = Math.min(100, typeof first === "number" && first > 0 ? first : 100);
  const slice = items.slice(start, start + size);
  const end = start + slice.length - 1;
  return {
    pageInfo: { hasNextPage: start + size < items.length, endCursor: slice.length ? cursor(end) : null },
    nodes: slice.map(map),
  };
}

const ok = (data: unknown): Reply => ({ status: 200, body: { data } });
const notFound = (message: string, path: string): Reply => ({
  status: 200,
  body: { data: null, errors: [{ type: "NOT_FOUND", path: [path], message }] },
});

function threadJson(t: FakeThread, query: string, vars: Vars) {
  return {
    id: t.id,
    isResolved: t.isResolved,
    isOutdated: t.isOutdated,
    path: t.path,
    line: t.isOutdated ? null : t.line,
    startLine: t.isOutdated ? null : t.startLine,
    originalLine: t.originalLine,
    originalStartLine: t.originalStartLine,
    comments: connection(t.comments, argOf(query, "comments", "first", vars), undefined, (c: FakeComment) =>
      gqlComment(c),
    ),
  };
}

export function handleGraphql(world: FakeWorld, query: string, vars: Vars): Reply {
  const op = graphqlOp(query);
  switch (op) {
    case "reviewThreads": {
      const owner = String(argOf(query, "repository", "owner", vars) ?? "");
      const name = String(argOf(query, "repository", "name", vars) ?? "");
      const repo = world.repo(owner, name);
      if (!repo)
        return notFound(`Could not resolve to a Repository with the name '${owner}/${name}'.`, "repository");
      const number = Number(argOf(query, "pullRequest", "number", vars));
      const pull = repo.pulls.get(number);
      if (!pull)
        return notFound(`Could not resolve to a PullRequest with the number of ${number}.`, "pullRequest");
      const first = argOf(query, "reviewThreads", "first", vars);
      const after = argOf(query, "reviewThreads", "after", vars);
      const reviewThreads = connection(pull.threads, first, after, (t) => threadJson(t, query, vars));
      return ok({ repository: { pullRequest: { reviewThreads } } });
    }
    case "node": {
      const thread = world.findThread(String(argOf(query, "node", "id", vars)));
      if (!thread) return notFound("Could not resolve to a node", "node");
      const first = argOf(query, "comments", "first", vars);
      const after = argOf(query, "comments", "after", vars);
      return ok({ node: { id: thread.id, comments: connection(thread.comments, first, after, gqlComment) } });
    }
    case "resolveReviewThread": {
      const thread = world.findThread(String(argOf(query, "resolveReviewThread", "threadId", vars)));
      if (!thread) return notFound("Could not resolve to a node", "resolveReviewThread");
      thread.isResolved = true;
      return ok({ resolveReviewThread: { thread: { id: thread.id, isResolved: true } } });
    }
    case "markPullRequestReadyForReview":
    case "convertPullRequestToDraft": {
      const id = argOf(query, op, "pullRequestId", vars);
      const pull = [...world.allPulls()].find((p) => p.nodeId === id);
      if (!pull) return notFound("Could not resolve to a node", op);
      pull.draft = op === "convertPullRequestToDraft";
      return ok({ [op]: { pullRequest: { id: pull.nodeId, isDraft: pull.draft } } });
    }
    default:
      return { status: 200, body: { errors: [{ message: "the fake GitHub does not answer this query" }] } };
  }
}
