/** Helpers that put state into the fake GitHub and read it back (default repository unless named). */
import { addIssueTo, addPullTo } from "./rest.js";
import {
  type AuthorInput,
  type FakeIssue,
  type FakeIssueComment,
  type FakePermission,
  type FakePull,
  type FakeRepo,
  type FakeReview,
  type FakeThread,
  type FakeWorld,
  toUser,
} from "./state.js";

export interface PullSeed {
  title?: string;
  body?: string;
  head?: string;
  base?: string;
  draft?: boolean;
  labels?: string[];
  state?: FakePull["state"];
  author?: string;
}

export interface ThreadSeed {
  path?: string;
  line?: number;
  startLine?: number;
  resolved?: boolean;
  outdated?: boolean;
  comments: { author: AuthorInput; body: string }[];
}

export interface Seeder {
  addRepo(fullName: string): FakeRepo;
  setPermission(login: string, permission: FakePermission, repo?: string): void;
  addPull(p?: PullSeed): FakePull;
  addReview(
    n: number,
    r: { author: AuthorInput; state?: FakeReview["state"]; body?: string; commitId?: string },
  ): FakeReview;
  addThread(n: number, t: ThreadSeed): FakeThread;
  /** `count` inline comments, each opening its own thread on `path`. */
  addComments(n: number, count: number, opts?: { author?: AuthorInput; path?: string }): FakeThread[];
  addIssueComment(n: number, c: { author: AuthorInput; body: string }): FakeIssueComment;
  /** A new comment at the end of an existing thread (someone answers fixpoint's reply). */
  replyInThread(threadId: string, c: { author: AuthorInput; body: string }): void;
  addIssue(i: { title: string; body?: string; labels?: string[]; state?: "open" | "closed" }): FakeIssue;
  pull(n: number): FakePull;
  issues(): FakeIssue[];
  thread(id: string): FakeThread;
}

export function createSeeder(world: FakeWorld, repo: FakeRepo): Seeder {
  const pull = (n: number): FakePull => {
    const p = repo.pulls.get(n);
    if (!p) throw new Error(`fake GitHub: no pull request #${n} in ${repo.owner}/${repo.name}`);
    return p;
  };
  let threadSeq = 1;
  const addThread = (n: number, t: ThreadSeed): FakeThread => {
    const line = t.line ?? 10;
    let first: number | null = null;
    const thread: FakeThread = {
      id: `PRRT_${threadSeq++}`,
      isResolved: t.resolved === true,
      isOutdated: t.outdated === true,
      path: t.path ?? "src/app.ts",
      line,
      startLine: t.startLine ?? null,
      originalLine: line,
      originalStartLine: t.startLine ?? null,
      comments: t.comments.map((c) => {
        const id = world.id();
        const comment = {
          id,
          author: toUser(c.author),
          body: c.body,
          createdAt: world.now(),
          inReplyTo: first,
        };
        first ??= id;
        return comment;
      }),
    };
    pull(n).threads.push(thread);
    return thread;
  };
  return {
    addRepo: (fullName) => world.addRepo(fullName),
    setPermission: (login, permission, name) => {
      const [owner = "", repoName = ""] = (name ?? `${repo.owner}/${repo.name}`).split("/");
      const target = world.repo(owner, repoName);
      if (!target) throw new Error(`fake GitHub: no repository ${name}`);
      target.collaborators.set(login.toLowerCase(), permission);
    },
    addPull: (p = {}) =>
      addPullTo(repo, {
        title: p.title ?? "A change",
        body: p.body ?? "",
        head: p.head ?? `feature-${repo.nextNumber}`,
        base: p.base ?? "main",
        draft: p.draft ?? false,
        author: p.author ?? "fixpoint-bot",
        ...(p.labels ? { labels: p.labels } : {}),
        ...(p.state ? { state: p.state } : {}),
      }),
    addReview: (n, r) => {
      const review: FakeReview = {
        id: world.id(),
        author: toUser(r.author),
        state: r.state ?? "COMMENTED",
        body: r.body ?? "",
        submittedAt: world.now(),
        commitId: r.commitId ?? null,
      };
      pull(n).reviews.push(review);
      return review;
    },
    addThread,
    addComments: (n, count, opts = {}) =>
      Array.from({ length: count }, (_, i) =>
        addThread(n, {
          path: opts.path ?? "src/big.ts",
          line: i + 1,
          comments: [{ author: opts.author ?? "alice", body: `Comment number ${i + 1}.` }],
        }),
      ),
    addIssueComment: (n, c) => {
      const comment = { id: world.id(), author: toUser(c.author), body: c.body, createdAt: world.now() };
      pull(n).conversation.push(comment);
      return comment;
    },
    replyInThread: (threadId, c) => {
      const t = world.findThread(threadId);
      if (!t) throw new Error(`fake GitHub: no review thread ${threadId}`);
      t.comments.push({
        id: world.id(),
        author: toUser(c.author),
        body: c.body,
        createdAt: world.now(),
        inReplyTo: t.comments[0]?.id ?? null,
      });
    },
    addIssue: (i) =>
      addIssueTo(repo, {
        title: i.title,
        body: i.body ?? "",
        labels: i.labels ?? [],
        author: "someone",
        ...(i.state ? { state: i.state } : {}),
      }),
    pull,
    issues: () => [...repo.issues.values()],
    thread: (id) => {
      const t = world.findThread(id);
      if (!t) throw new Error(`fake GitHub: no review thread ${id}`);
      return t;
    },
  };
}
