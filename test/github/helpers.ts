import type { GithubClient } from "../../src/domain/github.js";
import { createGithubClient, type GithubClientOptions } from "../../src/github/client.js";
import type { Clock } from "../../src/util/clock.js";
import type { FakeGithub } from "../fakes/github-server/index.js";

/** A clock whose sleeps return at once and advance virtual time; it records every wait. */
export function fakeClock(start = 1_700_000_000_000): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

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
