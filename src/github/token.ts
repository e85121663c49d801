import { execFile } from "node:child_process";
import type { ProcessRunner, ProcessSpec } from "../domain/process.js";
import { FixpointError } from "../errors.js";

const NO_TOKEN = "no GitHub token: set GITHUB_TOKEN or run `gh auth login`";

/**
 * The GitHub token, in this order: `GITHUB_TOKEN`, `GH_TOKEN`, then `gh auth token` when the
 * `gh` CLI is on PATH and logged in. Blank variables count as unset.
 * Throws FixpointError("config") when none of them yields a token.
 */
export async function resolveGithubToken(
  env: NodeJS.ProcessEnv,
  runner: ProcessRunner = minimalRunner,
): Promise<string> {
  for (const name of ["GITHUB_TOKEN", "GH_TOKEN"] as const) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  const result = await runner.run({
    command: "gh",
    args: ["auth", "token"],
    cwd: process.cwd(),
    env: { ...env },
    timeoutMs: 10_000,
  });
  const token = result.stdout.trim();
  if (result.spawnError !== undefined || result.exitCode !== 0 || token === "") {
    throw new FixpointError("config", NO_TOKEN);
  }
  return token;
}

/**
 * Just enough of a ProcessRunner for one short `gh` call, so that resolving a token does not
 * depend on the full runner; callers that have one pass it instead.
 */
const minimalRunner: ProcessRunner = {
  run: (spec: ProcessSpec) =>
    new Promise((resolve) => {
      const started = Date.now();
      execFile(
        spec.command,
        spec.args,
        { cwd: spec.cwd, env: spec.env, timeout: spec.timeoutMs, encoding: "utf8" },
        (error, stdout, stderr) => {
          const code = error && typeof error.code === "string" ? error.code : undefined;
          resolve({
            exitCode: error ? (typeof error.code === "number" ? error.code : null) : 0,
            signal: error?.signal ?? null,
            stdout,
            stderr,
            timedOut: error?.killed === true,
            cancelled: false,
            durationMs: Date.now() - started,
            ...(code === "ENOENT" || code === "EACCES" ? { spawnError: code } : {}),
          });
        },
      );
    }),
};
