/**
 * REST and GraphQL payloads → fixpoint's GitHub types. The input types name only the fields we
 * read, so octokit's generated types stay inside `src/github` and the fake server can answer
 * with plain objects.
 */
import type {
  Issue,
  IssueComment,
  PullRequest,
  PullReview,
  RepoPermission,
  ReviewComment,
  ReviewState,
  ReviewThread,
  ThreadComment,
} from "../domain/github.js";

interface RestUser {
  login: string;
  type?: string;
}
type RestLabel = string | { name?: string };

export function normaliseLogin(user: RestUser | null | undefined): {
  author: string | null;
  authorIsBot: boolean;
} {
  if (!user) return { author: null, authorIsBot: false };
  const isBot = user.type === "Bot" || user.login.endsWith("[bot]");
  return { author: user.login.replace(/\[bot\]$/, ""), authorIsBot: isBot };
}

function labelNames(labels: RestLabel[] | undefined): string[] {
  return (labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((n) => n !== "");
}

export interface RestPull {
  number: number;
  node_id: string;
  html_url: string;
  state: string;
  merged_at?: string | null;
  draft?: boolean;
  title: string;
  body?: string | null;
  head: { ref: string };
  base: { ref: string };
  labels?: RestLabel[];
  user?: RestUser | null;
}

export function toPull(p: RestPull): PullRequest {
  const state = p.merged_at ? "merged" : p.state === "closed" ? "closed" : "open";
  return {
    number: p.number,
    nodeId: p.node_id,
    url: p.html_url,
    state,
    draft: p.draft === true,
    title: p.title,
    body: p.body ?? "",
    head: p.head.ref,
    base: p.base.ref,
    labels: labelNames(p.labels),
    author: normaliseLogin(p.user).author,
  };
}

const REVIEW_STATES: readonly ReviewState[] = [
  "APPROVED",
  "CHANGES_REQUESTED",
  "COMMENTED",
  "DISMISSED",
  "PENDING",
];

export function toReview(r: {
  id: number;
  user?: RestUser | null;
  state: string;
  body?: string | null;
  submitted_at?: string | null;
  commit_id?: string | null;
}): PullReview {
  const state = REVIEW_STATES.find((s) => s === r.state.toUpperCase()) ?? "COMMENTED";
  return {
    id: r.id,
    ...normaliseLogin(r.user),
    state,
    body: r.body ?? "",
    submittedAt: r.submitted_at ?? null,
    commitId: r.commit_id ?? null,
  };
}

export function toReviewComment(c: {
  id: number;
  user?: RestUser | null;
  body: string;
  path: string;
  line?: number | null;
  start_line?: number | null;
  in_reply_to_id?: number | null;
  created_at: string;
}): ReviewComment {
  return {
    id: c.id,
    ...normaliseLogin(c.user),
    body: c.body,
    path: c.path,
    line: c.line ?? null,
    startLine: c.start_line ?? null,
    inReplyTo: c.in_reply_to_id ?? null,
    createdAt: c.created_at,
  };
}

export function toIssueComment(c: {
  id: number;
  user?: RestUser | null;
  body?: string | null;
  created_at: string;
  html_url: string;
}): IssueComment {
  return {
    id: c.id,
    ...normaliseLogin(c.user),
    body: c.body ?? "",
    createdAt: c.created_at,
    url: c.html_url,
  };
}

export function toIssue(i: {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  labels?: RestLabel[];
  state: string;
}): Issue {
  return {
    number: i.number,
    url: i.html_url,
    title: i.title,
    body: i.body ?? "",
    labels: labelNames(i.labels),
    state: i.state === "closed" ? "closed" : "open",
  };
}

const PERMISSIONS: readonly RepoPermission[] = ["admin", "maintain", "write", "triage", "read", "none"];

/** `role_name` is finer than `permission` (which folds maintain into write); prefer it. */
export function toPermission(p: { permission?: string; role_name?: string }): RepoPermission {
  const raw = (p.role_name ?? p.permission ?? "none").toLowerCase();
  return PERMISSIONS.find((x) => x === raw) ?? (p.permission === "write" ? "write" : "none");
}

// ---------------------------------------------------------------- GraphQL

export interface GqlComment {
  databaseId: number | null;
  body: string;
  createdAt: string;
  author: { __typename?: string; login: string } | null;
}

export interface GqlThread {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string | null;
  line: number | null;
  startLine: number | null;
  originalLine: number | null;
  originalStartLine: number | null;
  comments: { nodes: GqlComment[] };
}

export function toThreadComment(c: GqlComment): ThreadComment {
  const user = c.author ? { login: c.author.login, type: c.author.__typename ?? "User" } : null;
  return { databaseId: c.databaseId, ...normaliseLogin(user), body: c.body, createdAt: c.createdAt };
}

export function toThread(t: GqlThread, comments: ThreadComment[]): ReviewThread {
  const first = comments[0];
  return {
    id: t.id,
    isResolved: t.isResolved,
    isOutdated: t.isOutdated,
    path: t.path,
    line: t.line,
    startLine: t.startLine,
    originalLine: t.originalLine,
    originalStartLine: t.originalStartLine,
    author: first?.author ?? null,
    authorIsBot: first?.authorIsBot ?? false,
    comments,
  };
}
