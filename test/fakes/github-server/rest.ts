/** The REST endpoints the fixpoint client calls, and nothing else (unknown routes answer 404). */
import {
  issueCommentJson,
  issueJson,
  pullAsIssueJson,
  pullJson,
  repoJson,
  reviewCommentJson,
  reviewJson,
} from "./json.js";
import { type FakePull, type FakeRepo, type FakeWorld, toUser } from "./state.js";

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RestRequest {
  method: string;
  /** Path without the GHE `/api/v3` prefix and without the query. */
  pathname: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** `http://host[/api/v3]`: where `Link` URLs point. */
  linkBase: string;
  /** The login the token belongs to (authors what the client writes). */
  viewer: string;
}

type Handler = (world: FakeWorld, repo: FakeRepo, req: RestRequest, m: string[]) => Reply;

const notFound: Reply = { status: 404, body: { message: "Not Found" } };
const str = (v: unknown, d = ""): string => (typeof v === "string" ? v : d);

/** One page of `items` and the `Link` header GitHub would send with it. */
export function paginate<T>(req: RestRequest, items: T[]): Reply {
  const perPage = Math.min(100, Math.max(1, Number(req.query.get("per_page") ?? 30) || 30));
  const page = Math.max(1, Number(req.query.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (p: number, rel: string) => {
    const q = new URLSearchParams(req.query);
    q.set("page", String(p));
    q.set("per_page", String(perPage));
    return `<${req.linkBase}${req.pathname}?${q}>; rel="${rel}"`;
  };
  const links = [];
  if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
  if (page > 1) links.push(link(1, "first"), link(page - 1, "prev"));
  const body = items.slice((page - 1) * perPage, page * perPage);
  return { status: 200, body, headers: links.length ? { link: links.join(", ") } : {} };
}

function pullOf(repo: FakeRepo, n: string | undefined): FakePull | undefined {
  return repo.pulls.get(Number(n));
}

const routes: [string, RegExp, Handler][] = [
  ["GET", /^$/, (_w, repo) => ({ status: 200, body: repoJson(repo) })],
  [
    "GET",
    /^\/pulls$/,
    (_w, repo, req) => {
      const state = req.query.get("state") ?? "open";
      const head = req.query.get("head");
      const pulls = [...repo.pulls.values()].filter(
        (p) =>
          (state === "all" || (state === "open") === (p.state === "open")) &&
          (!head || `${repo.owner}:${p.head}` === head),
      );
      return paginate(
        req,
        pulls.reverse().map((p) => pullJson(repo, p)),
      );
    },
  ],
  [
    "POST",
    /^\/pulls$/,
    (_w, repo, req) => {
      const head = str(req.body.head);
      if ([...repo.pulls.values()].some((p) => p.head === head && p.state === "open")) {
        return {
          status: 422,
          body: { message: "Validation Failed", errors: [{ message: "A pull request already exists" }] },
        };
      }
      const pull = addPullTo(repo, {
        title: str(req.body.title),
        body: str(req.body.body),
        head,
        base: str(req.body.base, "main"),
        draft: req.body.draft === true,
        author: req.viewer,
      });
      return { status: 201, body: pullJson(repo, pull) };
    },
  ],
  [
    "GET",
    /^\/pulls\/(\d+)$/,
    (_w, repo, _r, m) => withPull(repo, m[1], (p) => ({ status: 200, body: pullJson(repo, p) })),
  ],
  [
    "PATCH",
    /^\/pulls\/(\d+)$/,
    (_w, repo, req, m) =>
      withPull(repo, m[1], (p) => {
        if (typeof req.body.title === "string") p.title = req.body.title;
        if (typeof req.body.body === "string") p.body = req.body.body;
        if (req.body.state === "closed" || req.body.state === "open") p.state = req.body.state;
        return { status: 200, body: pullJson(repo, p) };
      }),
  ],
  [
    "GET",
    /^\/pulls\/(\d+)\/reviews$/,
    (_w, repo, req, m) => withPull(repo, m[1], (p) => paginate(req, p.reviews.map(reviewJson))),
  ],
  [
    "GET",
    /^\/pulls\/(\d+)\/comments$/,
    (_w, repo, req, m) =>
      withPull(repo, m[1], (p) =>
        paginate(
          req,
          p.threads
            .flatMap((t) => t.comments.map((c) => reviewCommentJson(t, c)))
            .sort((a, b) => a.id - b.id),
        ),
      ),
  ],
  [
    "POST",
    /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/,
    (w, repo, req, m) =>
      withPull(repo, m[1], (p) => {
        const thread = p.threads.find((t) => t.comments.some((c) => c.id === Number(m[2])));
        if (!thread) return notFound;
        const comment = {
          id: w.id(),
          author: toUser(req.viewer),
          body: str(req.body.body),
          createdAt: w.now(),
          inReplyTo: Number(m[2]),
        };
        thread.comments.push(comment);
        return { status: 201, body: reviewCommentJson(thread, comment) };
      }),
  ],
  [
    "GET",
    /^\/issues\/(\d+)\/comments$/,
    (_w, repo, req, m) => {
      const list = pullOf(repo, m[1])?.conversation ?? repo.issues.get(Number(m[1]))?.comments;
      return list
        ? paginate(
            req,
            list.map((c) => issueCommentJson(repo, Number(m[1]), c)),
          )
        : notFound;
    },
  ],
  [
    "POST",
    /^\/issues\/(\d+)\/labels$/,
    (_w, repo, req, m) => {
      const target = pullOf(repo, m[1]) ?? repo.issues.get(Number(m[1]));
      if (!target) return notFound;
      const add = Array.isArray(req.body.labels)
        ? req.body.labels.filter((l): l is string => typeof l === "string")
        : [];
      for (const l of add) if (!target.labels.includes(l)) target.labels.push(l);
      return { status: 200, body: target.labels.map((name) => ({ name })) };
    },
  ],
  [
    "POST",
    /^\/issues\/(\d+)\/comments$/,
    (w, repo, req, m) => {
      const list = pullOf(repo, m[1])?.conversation ?? repo.issues.get(Number(m[1]))?.comments;
      if (!list) return notFound;
      const comment = {
        id: w.id(),
        author: toUser(req.viewer),
        body: str(req.body.body),
        createdAt: w.now(),
      };
      list.push(comment);
      return { status: 201, body: issueCommentJson(repo, Number(m[1]), comment) };
    },
  ],
  [
    "GET",
    /^\/issues$/,
    (_w, repo, req) => {
      const wanted = (req.query.get("labels") ?? "").split(",").filter((l) => l !== "");
      const state = req.query.get("state") ?? "open";
      const matches = (labels: string[], s: string) =>
        wanted.every((l) => labels.includes(l)) && (state === "all" || state === s);
      const all = [
        ...[...repo.issues.values()].filter((i) => matches(i.labels, i.state)).map((i) => issueJson(repo, i)),
        ...[...repo.pulls.values()]
          .filter((p) => matches(p.labels, p.state === "open" ? "open" : "closed"))
          .map((p) => pullAsIssueJson(repo, p)),
      ].sort((a, b) => b.number - a.number);
      return paginate(req, all);
    },
  ],
  [
    "POST",
    /^\/issues$/,
    (_w, repo, req) => {
      const labels = Array.isArray(req.body.labels)
        ? req.body.labels.filter((l) => typeof l === "string")
        : [];
      const issue = addIssueTo(repo, {
        title: str(req.body.title),
        body: str(req.body.body),
        labels,
        author: req.viewer,
      });
      return { status: 201, body: issueJson(repo, issue) };
    },
  ],
  [
    "GET",
    /^\/collaborators\/([^/]+)\/permission$/,
    (_w, repo, _r, m) => {
      const login = decodeURIComponent(m[1] ?? "");
      const role = repo.collaborators.get(login.toLowerCase()) ?? "none";
      const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
      return { status: 200, body: { permission, role_name: role, user: { login } } };
    },
  ],
];

function withPull(repo: FakeRepo, n: string | undefined, fn: (p: FakePull) => Reply): Reply {
  const pull = pullOf(repo, n);
  return pull ? fn(pull) : notFound;
}

export function handleRest(world: FakeWorld, req: RestRequest): Reply {
  const m = /^\/repos\/([^/]+)\/([^/]+)(.*)$/.exec(req.pathname);
  if (!m) return notFound;
  const repo = world.repo(m[1] ?? "", m[2] ?? "");
  if (!repo) return notFound;
  const rest = m[3] ?? "";
  for (const [method, pattern, handler] of routes) {
    const hit = method === req.method ? pattern.exec(rest) : null;
    if (hit)
      return handler(
        world,
        repo,
        req,
        [...hit].map((x) => x ?? ""),
      );
  }
  return notFound;
}

export function addPullTo(
  repo: FakeRepo,
  p: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
    author: string;
    labels?: string[];
    state?: FakePull["state"];
  },
): FakePull {
  const number = repo.nextNumber++;
  const pull: FakePull = {
    number,
    nodeId: `PR_${repo.owner}_${repo.name}_${number}`,
    title: p.title,
    body: p.body,
    state: p.state ?? "open",
    draft: p.draft,
    head: p.head,
    base: p.base,
    labels: p.labels ?? [],
    author: toUser(p.author),
    reviews: [],
    threads: [],
    conversation: [],
  };
  repo.pulls.set(number, pull);
  return pull;
}

export function addIssueTo(
  repo: FakeRepo,
  i: { title: string; body: string; labels: string[]; author: string; state?: "open" | "closed" },
) {
  const number = repo.nextNumber++;
  const issue = {
    number,
    title: i.title,
    body: i.body,
    labels: i.labels,
    state: i.state ?? "open",
    author: toUser(i.author),
    comments: [],
  };
  repo.issues.set(number, issue);
  return issue;
}
