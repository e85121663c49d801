/**
 * When to try a GitHub request again, and how long to wait: pure functions, so the policy is
 * testable without a server and the waiting itself goes through the injected Clock.
 */

export interface RetryPolicy {
  /** Total attempts, the first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** What a failed attempt looked like on the wire. */
export interface FailedAttempt {
  /** HTTP status; 0 when no response arrived (connection refused, reset). */
  status: number;
  headers: Record<string, string | undefined>;
  message: string;
}

export type FailureKind = "server" | "network" | "rate_limit" | "secondary_rate_limit" | "fatal";

export interface FailureClass {
  kind: FailureKind;
  /** What the server asked us to wait (retry-after, or until x-ratelimit-reset). */
  serverWaitMs?: number;
}

export function classifyFailure(f: FailedAttempt, nowMs: number): FailureClass {
  const retryAfter = parseRetryAfter(f.headers["retry-after"]);
  const wait = retryAfter === undefined ? {} : { serverWaitMs: retryAfter };
  if (f.status === 0) return { kind: "network" };
  if (f.status === 429) return { kind: "rate_limit", ...wait };
  if (f.status === 403) {
    if (/secondary rate limit/i.test(f.message) || retryAfter !== undefined) {
      return { kind: "secondary_rate_limit", ...wait };
    }
    if (f.headers["x-ratelimit-remaining"] === "0") {
      const reset = Number(f.headers["x-ratelimit-reset"]);
      return Number.isFinite(reset) && reset > 0
        ? { kind: "rate_limit", serverWaitMs: Math.max(0, reset * 1000 - nowMs) }
        : { kind: "rate_limit" };
    }
    return { kind: "fatal" };
  }
  if (f.status >= 500) return { kind: "server" };
  return { kind: "fatal" };
}

/**
 * Milliseconds to wait before attempt `attempt + 1` (attempt is 0-based, the one that failed).
 * The server's own wait wins when it gave one; otherwise exponential backoff with jitter in
 * [½, 1] of the exponential step, so that parallel clients spread out.
 */
export function retryDelay(
  failure: FailureClass,
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number {
  if (failure.serverWaitMs !== undefined) return failure.serverWaitMs;
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(step * (0.5 + 0.5 * random()));
}

function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
