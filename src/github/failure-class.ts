/**
 * What a failed GitHub request was: worth a retry or not, and how long the server asked us to
 * wait. Pure, so it is testable without a server; the retrying itself is util/retry.ts.
 */

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
  const retryAfter = parseRetryAfter(f.headers["retry-after"], nowMs);
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

function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
