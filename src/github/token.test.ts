import { describe, expect, test } from "vitest";
import type { ProcessResult, ProcessRunner, ProcessSpec } from "../domain/process.js";
import { FixpointError } from "../errors.js";
import { resolveGithubToken } from "./token.js";

function runner(result: Partial<ProcessResult>): ProcessRunner & { calls: ProcessSpec[] } {
  const calls: ProcessSpec[] = [];
  return {
    calls,
    run: async (spec) => {
      calls.push(spec);
      return {
        exitCode: 0,
        signal: null,
        stdout: "",
        stderr: "",
        timedOut: false,
        cancelled: false,
        durationMs: 1,
        ...result,
      };
    },
  };
}

describe("resolveGithubToken", () => {
  test("GITHUB_TOKEN first, then GH_TOKEN, without asking gh", async () => {
    const gh = runner({ stdout: "from-gh\n" });
    expect(await resolveGithubToken({ GITHUB_TOKEN: "a", GH_TOKEN: "b" }, gh)).toBe("a");
    expect(await resolveGithubToken({ GITHUB_TOKEN: "  ", GH_TOKEN: "b" }, gh)).toBe("b");
    expect(gh.calls).toHaveLength(0);
  });

  test("then `gh auth token`", async () => {
    const gh = runner({ stdout: "gho_123\n" });
    expect(await resolveGithubToken({}, gh)).toBe("gho_123");
    expect(gh.calls[0]).toMatchObject({ command: "gh", args: ["auth", "token"] });
  });

  test.each([
    ["gh is not installed", { spawnError: "ENOENT", exitCode: null }],
    ["gh is not logged in", { exitCode: 1, stderr: "not logged in" }],
    ["gh prints nothing", { stdout: "\n" }],
  ])("none: a config error telling what to do (%s)", async (_why, result) => {
    const e = await resolveGithubToken({}, runner(result)).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(FixpointError);
    expect(e).toMatchObject({
      code: "config",
      message: "no GitHub token: set GITHUB_TOKEN or run `gh auth login`",
    });
  });

  test("the built-in runner treats a PATH without gh as no token", async () => {
    const e = await resolveGithubToken({ PATH: "/nonexistent-fixpoint-path" }).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: "config" });
  });
});
