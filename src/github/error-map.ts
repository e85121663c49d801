import { FixpointError } from "../errors.js";
import type { FailureKind } from "./failure-class.js";

/** What one client method was doing, for error messages. */
export interface CallContext {
  repo: string;
  /** e.g. "create pull request"; used as "could not <action>". */
  action: string;
  /** The permission a write needs, named as GitHub's fine-grained tokens name it. */
  write?: "pull_requests" | "issues";
  /** What a 404 means when the repository itself exists, e.g. "pull request #5". */
  subject?: string;
  timeoutMs: number;
}

export type CallFailure =
  | { type: "timeout" }
  | { type: "http"; status: number; message: string; kind: FailureKind; attempts: number }
  | { type: "graphql"; errorTypes: string[]; message: string }
  | { type: "other"; cause: unknown };

const TIMEOUT_PREFIX = "GitHub did not answer within ";

/** Whether `e` is this module's timeout error (the call's deadline passed). */
export function isGithubTimeout(e: unknown): boolean {
  return e instanceof FixpointError && e.code === "github" && e.message.startsWith(TIMEOUT_PREFIX);
}

export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * One sentence per failure a person can act on. `repoExists` is known only after a 404: the
 * client probes the repository to tell "no such repository" from "no such pull request".
 */
export function toGithubError(
  failure: CallFailure,
  ctx: CallContext,
  opts: { repoExists?: boolean; cause?: unknown } = {},
): FixpointError {
  const cause = opts.cause;
  const fail = (message: string, retryable: boolean) =>
    new FixpointError("github", message, { cause, retryable });
  const notFound = () =>
    opts.repoExists === true && ctx.subject
      ? fail(`${ctx.subject} not found in ${ctx.repo}`, false)
      : fail(`repository ${ctx.repo} not found (or the token cannot see it)`, false);

  switch (failure.type) {
    case "timeout":
      return fail(`${TIMEOUT_PREFIX}${formatDuration(ctx.timeoutMs)} (${ctx.action})`, true);
    case "graphql":
      if (failure.errorTypes.includes("NOT_FOUND")) return notFound();
      if (failure.errorTypes.includes("FORBIDDEN") && ctx.write) {
        return fail(`could not ${ctx.action} in ${ctx.repo}: token lacks ${ctx.write}:write`, false);
      }
      if (failure.errorTypes.includes("RATE_LIMITED")) {
        return fail(`GitHub rate limit exceeded (${ctx.action}); try again later`, true);
      }
      return fail(`GitHub refused to ${ctx.action}: ${failure.message}`, false);
    case "other":
      return fail(`could not ${ctx.action}: ${describe(failure.cause)}`, false);
    case "http":
      return httpError(failure, ctx, fail, notFound);
  }
}

function httpError(
  f: Extract<CallFailure, { type: "http" }>,
  ctx: CallContext,
  fail: (message: string, retryable: boolean) => FixpointError,
  notFound: () => FixpointError,
): FixpointError {
  const tries = f.attempts > 1 ? ` after ${f.attempts} attempts` : "";
  if (f.kind === "rate_limit" || f.kind === "secondary_rate_limit") {
    const which = f.kind === "secondary_rate_limit" ? "secondary rate limit" : "rate limit";
    return fail(`GitHub ${which} exceeded (${ctx.action})${tries}; try again later`, true);
  }
  if (f.kind === "network") return fail(`could not reach GitHub (${ctx.action})${tries}: ${f.message}`, true);
  if (f.kind === "server") return fail(`GitHub failed (HTTP ${f.status}) to ${ctx.action}${tries}`, true);
  switch (f.status) {
    case 401:
      return fail("GitHub token rejected (401)", false);
    case 403:
      return ctx.write
        ? fail(`could not ${ctx.action} in ${ctx.repo}: token lacks ${ctx.write}:write`, false)
        : fail(`GitHub denied access to ${ctx.repo} (${ctx.action}): ${f.message}`, false);
    case 404:
      return notFound();
    case 422:
      return fail(`GitHub rejected the request to ${ctx.action}: ${f.message}`, false);
    default:
      return fail(`GitHub answered HTTP ${f.status} to ${ctx.action}: ${f.message}`, false);
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
