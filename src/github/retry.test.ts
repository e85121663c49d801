import { describe, expect, test } from "vitest";
import { classifyFailure, DEFAULT_RETRY_POLICY, retryDelay } from "./retry.js";

const at = (status: number, headers: Record<string, string> = {}, message = "x") => ({
  status,
  headers,
  message,
});

describe("classifyFailure", () => {
  test.each([
    [at(500), "server"],
    [at(0), "network"],
    [at(429), "rate_limit"],
    [at(403, {}, "You have exceeded a secondary rate limit"), "secondary_rate_limit"],
    [at(403, { "retry-after": "5" }), "secondary_rate_limit"],
    [at(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "100" }), "rate_limit"],
    [at(403, {}, "Resource not accessible by integration"), "fatal"],
    [at(404), "fatal"],
    [at(422), "fatal"],
  ])("%o → %s", (attempt, kind) => {
    expect(classifyFailure(attempt, 0).kind).toBe(kind);
  });

  test("server waits: retry-after seconds, or until the rate limit resets", () => {
    expect(classifyFailure(at(429, { "retry-after": "3" }), 0).serverWaitMs).toBe(3000);
    expect(
      classifyFailure(at(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "110" }), 100_000)
        .serverWaitMs,
    ).toBe(10_000);
  });
});

describe("retryDelay", () => {
  test("doubles per attempt, capped, with jitter in [½, 1]", () => {
    const server = { kind: "server" } as const;
    expect([0, 1, 2].map((a) => retryDelay(server, a, DEFAULT_RETRY_POLICY, () => 1))).toEqual([
      1000, 2000, 4000,
    ]);
    expect(retryDelay(server, 20, DEFAULT_RETRY_POLICY, () => 1)).toBe(30_000);
    expect(retryDelay(server, 1, DEFAULT_RETRY_POLICY, () => 0)).toBe(1000);
    expect(retryDelay({ kind: "rate_limit", serverWaitMs: 4200 }, 3, DEFAULT_RETRY_POLICY, () => 0)).toBe(
      4200,
    );
  });
});
