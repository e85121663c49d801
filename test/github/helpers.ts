import type { GithubClient, ReviewThread, ThreadComment } from "../../src/domain/github.js";
import { createGithubClient, type GithubClientOptions } from "../../src/github/client.js";
import type { FakeGithub } from "../fakes/github-server/index.js";
import { fakeClock as fakeClockAt } from "../helpers/fake-clock.js";

/** A clock whose sleeps return at once and advance virtual time, starting in 2023. */
export const fakeClock = (start = 1_700_000_000_000) => fakeClockAt(start);

export function clientFor(gh: FakeGithub, extra: Partial<GithubClientOptions> = {}): GithubClient {
  return createGithubClient({
    repo: gh.repo,
    baseUrl: gh.url,
    token: gh.token,
    clock: fakeClock(),
    random: () => 0.5,
    ...extra,
  });
}

let nextCommentId = 1;

/** A review-thread comment by `author` (a bot when `bot`), each with its own id. */
export function threadComment(author: string, body: string, bot = false): ThreadComment {
  return { databaseId: nextCommentId++, author, authorIsBot: bot, body, createdAt: "2024-01-01T00:00:00Z" };
}

/** An open, current review thread on src/a.ts line 3, started by the first comment's author. */
export function reviewThread(id: string, comments: ThreadComment[]): ReviewThread {
  return {
    id,
    isResolved: false,
    isOutdated: false,
    path: "src/a.ts",
    line: 3,
    startLine: null,
    originalLine: 3,
    originalStartLine: null,
    author: comments[0]?.author ?? null,
    authorIsBot: comments[0]?.authorIsBot ?? false,
    comments,
  };
}
