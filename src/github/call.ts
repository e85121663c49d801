import { GraphqlResponseError, withCustomRequest } from "@octokit/graphql";
import { Octokit } from "@octokit/rest";
import type { Clock } from "../domain/clock.js";
import { FixpointError } from "../errors.js";
import { type RetryPolicy, withRetry } from "../util/retry.js";
import { type CallContext, type CallFailure, toGithubError } from "./error-map.js";
import { classifyFailure, type FailedAttempt, type FailureClass } from "./failure-class.js";

export type GraphqlFn = ReturnType<typeof withCustomRequest>;

/** What a client method gets for one call: both APIs, sharing one deadline and retry policy. */
export interface CallApi {
  octokit: Octokit;
  graphql: GraphqlFn;
}

export interface CallDeps {
  repo: string;
  baseUrl: string;
  token: string;
  timeoutMs: number;
  clock: Clock;
  random: () => number;
  policy: RetryPolicy;
  fetch?: typeof fetch;
}

export type CallRunner = <T>(
  ctx: Omit<CallContext, "repo" | "timeoutMs">,
  fn: (api: CallApi) => Promise<T>,
) => Promise<T>;

/** One request's outcome: its response, or what failed (classified when it was an HTTP failure). */
type Attempt<T> =
  | { ok: true; value: T }
  | { ok: false; error: unknown; attempts: number; seen?: FailedAttempt; failure?: FailureClass };

/** Thrown inside a call when the retries are spent or the failure is not worth a retry. */
class GiveUp extends Error {
  constructor(
    readonly failure: CallFailure,
    readonly original: unknown,
  ) {
    super("github call failed");
  }
}

const silentLog = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/**
 * Runs one client method. A fresh Octokit per call carries the call's deadline as the default
 * `request.signal`, so every request of the call — each page of a pagination, each retry — is
 * bounded by the same `timeoutMs`. Retries wrap the request hook: a failed page is retried
 * alone instead of restarting the pagination.
 */
export function createCallRunner(deps: CallDeps): CallRunner {
  return async (partial, fn) => {
    const ctx: CallContext = { ...partial, repo: deps.repo, timeoutMs: deps.timeoutMs };
    const signal = AbortSignal.timeout(deps.timeoutMs);
    const deadline = deps.clock.now() + deps.timeoutMs;
    const octokit = new Octokit({
      auth: deps.token,
      baseUrl: deps.baseUrl,
      userAgent: "fixpoint",
      log: silentLog,
      request: { signal, ...(deps.fetch ? { fetch: deps.fetch } : {}) },
    });
    octokit.hook.wrap("request", async (request, options) => {
      const last = await withRetry(
        async (n): Promise<Attempt<Awaited<ReturnType<typeof request>>>> => {
          try {
            return { ok: true, value: await request(options) };
          } catch (e) {
            const seen = signal.aborted ? undefined : failedAttempt(e);
            const failure = seen && classifyFailure(seen, deps.clock.now());
            return { ok: false, error: e, attempts: n, ...(seen && failure ? { seen, failure } : {}) };
          }
        },
        {
          policy: deps.policy,
          deps: { clock: deps.clock, jitter: deps.random },
          signal,
          deadline,
          shouldRetry: (o) => !o.ok && o.failure !== undefined && o.failure.kind !== "fatal",
          serverWaitMs: (o) => (o.ok ? undefined : o.failure?.serverWaitMs),
        },
      );
      if (last.ok) return last.value;
      if (signal.aborted) throw new GiveUp({ type: "timeout" }, last.error);
      if (last.seen === undefined || last.failure === undefined) throw last.error;
      const { seen, failure } = last;
      const http = { status: seen.status, message: seen.message, kind: failure.kind };
      throw new GiveUp({ type: "http", ...http, attempts: last.attempts }, last.error);
    });
    const api: CallApi = { octokit, graphql: withCustomRequest(octokit.request) };
    try {
      return await fn(api);
    } catch (e) {
      // A deadline that passed while a body was read surfaces as whatever broke next.
      if (signal.aborted && !(e instanceof FixpointError))
        throw toGithubError({ type: "timeout" }, ctx, { cause: e });
      throw await explain(e, ctx, api);
    }
  };
}

/**
 * Octokit's RequestError, read structurally (its package is not one of our direct
 * dependencies). No `response` means no answer arrived: a network failure.
 */
function failedAttempt(e: unknown): FailedAttempt | undefined {
  if (!(e instanceof Error) || !("status" in e) || typeof e.status !== "number") return undefined;
  const response =
    "response" in e ? (e.response as { headers?: Record<string, string> } | undefined) : undefined;
  return {
    status: response === undefined ? 0 : e.status,
    headers: response?.headers ?? {},
    message: e.message,
  };
}

async function explain(e: unknown, ctx: CallContext, api: CallApi): Promise<FixpointError> {
  if (e instanceof FixpointError) return e;
  if (e instanceof GiveUp) {
    const f = e.failure;
    const notFound = f.type === "http" && f.status === 404;
    const repoExists = notFound && ctx.subject ? await probeRepo(ctx.repo, api) : undefined;
    return toGithubError(f, ctx, { cause: e.original, ...(repoExists === undefined ? {} : { repoExists }) });
  }
  if (e instanceof GraphqlResponseError) {
    const errors: { type?: string }[] = Array.isArray(e.errors) ? e.errors : [];
    const errorTypes = errors.map((x) => x.type ?? "");
    const repoExists =
      errorTypes.includes("NOT_FOUND") && ctx.subject ? await probeRepo(ctx.repo, api) : undefined;
    return toGithubError({ type: "graphql", errorTypes, message: e.message }, ctx, {
      cause: e,
      ...(repoExists === undefined ? {} : { repoExists }),
    });
  }
  return toGithubError({ type: "other", cause: e }, ctx, { cause: e });
}

/** true/false when GitHub said so; undefined when the probe itself failed. */
async function probeRepo(repo: string, api: CallApi): Promise<boolean | undefined> {
  const [owner = "", name = ""] = repo.split("/");
  try {
    await api.octokit.rest.repos.get({ owner, repo: name });
    return true;
  } catch (e) {
    if (e instanceof GiveUp && e.failure.type === "http" && e.failure.status === 404) return false;
    return undefined;
  }
}

/** Inside a call: whether `e` is the request failure with this HTTP status (no retry left). */
export function isHttpStatus(e: unknown, status: number): boolean {
  return e instanceof GiveUp && e.failure.type === "http" && e.failure.status === status;
}
