/**
 * The fake GitHub's in-memory world: repositories with collaborators, pull requests (with
 * reviews, review threads and conversation comments) and issues. Issues and pull requests
 * share one number sequence per repository, as on GitHub.
 */

export type FakePermission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface FakeUser {
  login: string;
  isBot: boolean;
}

export interface FakeComment {
  id: number;
  author: FakeUser;
  body: string;
  createdAt: string;
  inReplyTo: number | null;
}

export interface FakeThread {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  startLine: number | null;
  originalLine: number;
  originalStartLine: number | null;
  comments: FakeComment[];
}

export interface FakeReview {
  id: number;
  author: FakeUser;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED";
  body: string;
  submittedAt: string;
  /** The head commit the review is on (REST `commit_id`): tests pass the SHA from the bare remote. */
  commitId: string | null;
}

export interface FakeIssueComment {
  id: number;
  author: FakeUser;
  body: string;
  createdAt: string;
}

export interface FakePull {
  number: number;
  nodeId: string;
  title: string;
  body: string;
  state: "open" | "closed" | "merged";
  draft: boolean;
  head: string;
  base: string;
  labels: string[];
  author: FakeUser;
  reviews: FakeReview[];
  threads: FakeThread[];
  conversation: FakeIssueComment[];
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  state: "open" | "closed";
  author: FakeUser;
  comments: FakeIssueComment[];
}

export interface FakeRepo {
  owner: string;
  name: string;
  collaborators: Map<string, FakePermission>;
  pulls: Map<number, FakePull>;
  issues: Map<number, FakeIssue>;
  nextNumber: number;
}

/** Seed input for an author: a login, or a login with `bot: true`. */
export type AuthorInput = string | { login: string; bot?: boolean };

export function toUser(a: AuthorInput): FakeUser {
  return typeof a === "string" ? { login: a, isBot: false } : { login: a.login, isBot: a.bot === true };
}

export class FakeWorld {
  readonly repos = new Map<string, FakeRepo>();
  private nextId = 1000;
  private tick = Date.parse("2024-01-01T00:00:00Z");

  id(): number {
    return this.nextId++;
  }

  /** Deterministic, increasing timestamps. */
  now(): string {
    this.tick += 60_000;
    return new Date(this.tick).toISOString();
  }

  addRepo(fullName: string): FakeRepo {
    const [owner = "", name = ""] = fullName.split("/");
    const repo: FakeRepo = {
      owner,
      name,
      collaborators: new Map(),
      pulls: new Map(),
      issues: new Map(),
      nextNumber: 1,
    };
    this.repos.set(`${owner}/${name}`.toLowerCase(), repo);
    return repo;
  }

  repo(owner: string, name: string): FakeRepo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  /** Every pull request of every repository, for lookups by node id. */
  *allPulls(): Iterable<FakePull> {
    for (const repo of this.repos.values()) yield* repo.pulls.values();
  }

  findThread(id: string): FakeThread | undefined {
    for (const pull of this.allPulls()) {
      const found = pull.threads.find((t) => t.id === id);
      if (found) return found;
    }
    return undefined;
  }

  /** Which pull request holds review comment `id`, and in which thread. */
  findReviewComment(id: number): { pull: FakePull; thread: FakeThread; comment: FakeComment } | undefined {
    for (const pull of this.allPulls()) {
      for (const thread of pull.threads) {
        const comment = thread.comments.find((c) => c.id === id);
        if (comment) return { pull, thread, comment };
      }
    }
    return undefined;
  }
}
