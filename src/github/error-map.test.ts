import { describe, expect, test } from "vitest";
import { DEFAULT_GITHUB_TIMEOUT_MS } from "./client.js";
import { type CallContext, isGithubTimeout, toGithubError } from "./error-map.js";

const ctx: CallContext = {
  repo: "o/r",
  action: "read pull request #3",
  subject: "pull request #3",
  timeoutMs: 30_000,
};

describe("toGithubError", () => {
  test("the default timeout reads as 30s", () => {
    const e = toGithubError({ type: "timeout" }, { ...ctx, timeoutMs: DEFAULT_GITHUB_TIMEOUT_MS });
    expect(e.message).toBe("GitHub did not answer within 30s (read pull request #3)");
    expect(e.retryable).toBe(true);
    expect(isGithubTimeout(e)).toBe(true);
  });

  test("404: the repository unless the probe saw it, then the subject", () => {
    const http = { type: "http", status: 404, message: "Not Found", kind: "fatal", attempts: 1 } as const;
    expect(toGithubError(http, ctx).message).toBe("repository o/r not found (or the token cannot see it)");
    expect(toGithubError(http, ctx, { repoExists: false }).message).toMatch(/^repository o\/r not found/);
    expect(toGithubError(http, ctx, { repoExists: true }).message).toBe("pull request #3 not found in o/r");
  });

  test("403 on a write names the missing permission; on a read it does not guess", () => {
    const http = {
      type: "http",
      status: 403,
      message: "Resource not accessible",
      kind: "fatal",
      attempts: 1,
    } as const;
    expect(toGithubError(http, { ...ctx, action: "create issue", write: "issues" }).message).toBe(
      "could not create issue in o/r: token lacks issues:write",
    );
    expect(toGithubError(http, ctx).message).toContain("GitHub denied access to o/r");
    expect(isGithubTimeout(toGithubError(http, ctx))).toBe(false);
  });
});
