import type { GithubClient } from "../../src/domain/github.js";
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
