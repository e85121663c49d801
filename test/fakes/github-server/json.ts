/** REST and GraphQL representations of the fake world, shaped as GitHub shapes them. */
import type {
  FakeComment,
  FakeIssue,
  FakeIssueComment,
  FakePull,
  FakeRepo,
  FakeReview,
  FakeThread,
  FakeUser,
} from "./state.js";

const WEB = "https://github.example";

/** REST spells a bot `name[bot]` with type Bot; GraphQL spells it `name` with __typename Bot. */
export function restUser(u: FakeUser) {
  return { login: u.isBot ? `${u.login}[bot]` : u.login, type: u.isBot ? "Bot" : "User", id: 1 };
}

export function gqlUser(u: FakeUser) {
  return { __typename: u.isBot ? "Bot" : "User", login: u.login };
}

const labels = (names: string[]) => names.map((name) => ({ name }));

export function repoJson(r: FakeRepo) {
  return { full_name: `${r.owner}/${r.name}`, name: r.name, owner: { login: r.owner }, private: true };
}

export function pullJson(r: FakeRepo, p: FakePull) {
  return {
    number: p.number,
    node_id: p.nodeId,
    html_url: `${WEB}/${r.owner}/${r.name}/pull/${p.number}`,
    state: p.state === "open" ? "open" : "closed",
    merged_at: p.state === "merged" ? "2024-01-02T00:00:00Z" : null,
    draft: p.draft,
    title: p.title,
    body: p.body,
    head: { ref: p.head, label: `${r.owner}:${p.head}` },
    base: { ref: p.base, label: `${r.owner}:${p.base}` },
    labels: labels(p.labels),
    user: restUser(p.author),
  };
}

export function reviewJson(rv: FakeReview) {
  return {
    id: rv.id,
    user: restUser(rv.author),
    state: rv.state,
    body: rv.body,
    submitted_at: rv.submittedAt,
    commit_id: rv.commitId,
  };
}

export function reviewCommentJson(t: FakeThread, c: FakeComment) {
  return {
    id: c.id,
    user: restUser(c.author),
    body: c.body,
    path: t.path,
    line: t.line,
    start_line: t.startLine,
    original_line: t.originalLine,
    in_reply_to_id: c.inReplyTo ?? undefined,
    created_at: c.createdAt,
  };
}

export function issueCommentJson(r: FakeRepo, n: number, c: FakeIssueComment) {
  return {
    id: c.id,
    user: restUser(c.author),
    body: c.body,
    created_at: c.createdAt,
    html_url: `${WEB}/${r.owner}/${r.name}/issues/${n}#issuecomment-${c.id}`,
  };
}

export function issueJson(r: FakeRepo, i: FakeIssue) {
  return {
    number: i.number,
    html_url: `${WEB}/${r.owner}/${r.name}/issues/${i.number}`,
    title: i.title,
    body: i.body,
    labels: labels(i.labels),
    state: i.state,
    user: restUser(i.author),
  };
}

/** A PR as the issues API lists it: with the `pull_request` marker key. */
export function pullAsIssueJson(r: FakeRepo, p: FakePull) {
  return {
    number: p.number,
    html_url: `${WEB}/${r.owner}/${r.name}/pull/${p.number}`,
    title: p.title,
    body: p.body,
    labels: labels(p.labels),
    state: p.state === "open" ? "open" : "closed",
    user: restUser(p.author),
    pull_request: { url: `${WEB}/${r.owner}/${r.name}/pull/${p.number}` },
  };
}

export function gqlComment(c: FakeComment) {
  return { databaseId: c.id, body: c.body, createdAt: c.createdAt, author: gqlUser(c.author) };
}
