import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FixpointError } from "../../src/errors.js";
import { type FakeGithub, startFakeGithub } from "../fakes/github-server/index.js";
import { clientFor, fakeClock } from "./helpers.js";

let gh: FakeGithub;
beforeEach(async () => {
  gh = await startFakeGithub();
});
afterEach(async () => {
  await gh.close();
});

async function failure(p: Promise<unknown>): Promise<FixpointError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof FixpointError)) throw new Error(`expected a FixpointError, got ${String(e)}`);
  return e;
}

const pullRoute = (n: number) => `GET /repos/acme/shop/pulls/${n}`;

describe("retries", () => {
  test("a 500 is retried with exponential backoff, then succeeds", async () => {
    const pull = gh.addPull();
    gh.inject({ route: pullRoute(pull.number), status: 500, times: 2 });
    const clock = fakeClock();
    const got = await clientFor(gh, { clock, random: () => 1 }).getPull(pull.number);
    expect(got.number).toBe(pull.number);
    expect(gh.requests.filter((r) => r.pathname === `/repos/acme/shop/pulls/${pull.number}`)).toHaveLength(3);
    expect(clock.slept).toEqual([1000, 2000]);
  });

  test("jitter spreads the wait between half and all of the step", async () => {
    const pull = gh.addPull();
    gh.inject({ route: pullRoute(pull.number), status: 503, times: 1 });
    const clock = fakeClock();
    await clientFor(gh, { clock, random: () => 0 }).getPull(pull.number);
    expect(clock.slept).toEqual([500]);
  });

  test("429 waits exactly the retry-after seconds, on the injected clock", async () => {
    const pull = gh.addPull();
    gh.inject({ route: pullRoute(pull.number), status: 429, retryAfter: 7 });
    const clock = fakeClock();
    const started = Date.now();
    await clientFor(gh, { clock }).getPull(pull.number);
    expect(clock.slept).toEqual([7000]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("a 403 secondary rate limit is retried", async () => {
    const pull = gh.addPull();
    gh.inject({ route: pullRoute(pull.number), status: 403, secondary: true, times: 2 });
    const clock = fakeClock();
    expect((await clientFor(gh, { clock }).getPull(pull.number)).number).toBe(pull.number);
    expect(clock.slept).toHaveLength(2);
  });

  test("a primary rate limit waits until the reset", async () => {
    const pull = gh.addPull();
    const clock = fakeClock(1_700_000_000_000);
    gh.inject({ route: pullRoute(pull.number), status: 403, rateLimitReset: 1_700_000_012 });
    await clientFor(gh, { clock }).getPull(pull.number);
    expect(clock.slept).toEqual([12_000]);
  });

  test("a rate limit that resets after the deadline fails at once, retryable", async () => {
    const pull = gh.addPull();
    gh.inject({ route: pullRoute(pull.number), status: 429, retryAfter: 3600 });
    const clock = fakeClock();
    const e = await failure(clientFor(gh, { clock }).getPull(pull.number));
    expect(e.message).toMatch(/rate limit exceeded/);
    expect(e.retryable).toBe(true);
    expect(clock.slept).toEqual([]);
  });

  test("attempts are bounded: persistent 502 gives up after 4 with a clear reason", async () => {
    const pull = gh.addPull();
    gh.inject({ route: pullRoute(pull.number), status: 502, times: 10 });
    const e = await failure(clientFor(gh).getPull(pull.number));
    expect(e.code).toBe("github");
    expect(e.message).toBe(`GitHub failed (HTTP 502) to read pull request #${pull.number} after 4 attempts`);
    expect(e.retryable).toBe(true);
    expect(gh.requests).toHaveLength(4);
  });

  test("a page that fails mid-pagination is retried alone", async () => {
    const pull = gh.addPull();
    gh.addComments(pull.number, 250);
    gh.inject({ route: /pulls\/\d+\/comments/, status: 500, times: 1 });
    const comments = await clientFor(gh).listReviewComments(pull.number);
    expect(comments).toHaveLength(250);
    expect(gh.requests).toHaveLength(4);
  });
});

describe("timeouts", () => {
  test("a hanging GitHub fails within the configured timeout with a reason", async () => {
    const pull = gh.addPull();
    gh.hang(/reviewThreads/);
    const started = Date.now();
    const e = await failure(clientFor(gh, { timeoutMs: 300 }).listReviewThreads(pull.number));
    const elapsed = Date.now() - started;
    expect(e.message).toMatch(/^GitHub did not answer within 300ms/);
    expect(e.retryable).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3000);
  });
});

describe("error reasons", () => {
  test("404 on an unknown repository names it", async () => {
    const client = clientFor(gh, { repo: "acme/nope" });
    const e = await failure(client.getPull(1));
    expect(e.message).toBe("repository acme/nope not found (or the token cannot see it)");
    expect(e.retryable).toBe(false);
    const g = await failure(client.listReviewThreads(1));
    expect(g.message).toBe("repository acme/nope not found (or the token cannot see it)");
  });

  test("404 on a missing PR in a visible repository names the PR", async () => {
    const e = await failure(clientFor(gh).getPull(42));
    expect(e.message).toBe("pull request #42 not found in acme/shop");
    const g = await failure(clientFor(gh).listReviewThreads(42));
    expect(g.message).toBe("pull request #42 not found in acme/shop");
  });

  test("403 on createPull says the token lacks pull_requests:write, without retrying", async () => {
    gh.inject({ route: "POST /repos/acme/shop/pulls", status: 403 });
    const e = await failure(
      clientFor(gh).createPull({ title: "t", body: "", head: "h", base: "main", draft: false }),
    );
    expect(e.message).toContain("token lacks pull_requests:write");
    expect(e.retryable).toBe(false);
    expect(gh.requests).toHaveLength(1);
  });

  test("a rejected token is reported as 401", async () => {
    const e = await failure(clientFor(gh, { token: "wrong" }).getPull(1));
    expect(e.message).toBe("GitHub token rejected (401)");
    expect(gh.requests[0]?.authorization).toBe("token wrong");
  });

  test("nothing listening is a retryable network failure", async () => {
    const url = gh.url;
    await gh.close();
    const e = await failure(clientFor(gh, { baseUrl: url }).getPull(1));
    expect(e.message).toMatch(/could not reach GitHub .* after 4 attempts/);
    expect(e.retryable).toBe(true);
    gh = await startFakeGithub();
  });
});
