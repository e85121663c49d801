import { describe, expect, test } from "vitest";
import { classifyFailure } from "./failure-class.js";

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
