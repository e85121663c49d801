/**
 * Fault injection. A route is matched against the request key `METHOD /path` (path without the
 * GHE `/api/v3` prefix and without the query); GraphQL requests have the key
 * `POST /graphql <op>` where op is the root field or mutation (e.g. `reviewThreads`).
 * A string route matches the whole key, `METHOD /path`, or the path alone; a RegExp is tested
 * against the key.
 */
import type { Reply } from "./rest.js";

export interface FaultSpec {
  route: RegExp | string;
  status: 500 | 502 | 503 | 429 | 403 | 401 | 404 | number;
  /** How many matching requests fail; default 1. */
  times?: number;
  /** Seconds, sent as `retry-after`. */
  retryAfter?: number;
  /** A 403 secondary rate limit message. */
  secondary?: true;
  /** Primary rate limit: `x-ratelimit-remaining: 0` and this reset (epoch seconds). */
  rateLimitReset?: number;
  message?: string;
}

export interface RequestKey {
  key: string;
  methodPath: string;
  pathname: string;
}

export function routeMatches(route: RegExp | string, k: RequestKey): boolean {
  if (typeof route === "string") return route === k.key || route === k.methodPath || route === k.pathname;
  return route.test(k.key);
}

function defaultMessage(f: FaultSpec): string {
  if (f.secondary)
    return "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.";
  if (f.rateLimitReset !== undefined) return "API rate limit exceeded for user.";
  switch (f.status) {
    case 401:
      return "Bad credentials";
    case 403:
      return "Resource not accessible by personal access token";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    default:
      return "Server Error";
  }
}

export class Faults {
  private faults: { spec: FaultSpec; left: number }[] = [];
  private hangs: { route: RegExp | string; left: number }[] = [];

  inject(spec: FaultSpec): void {
    this.faults.push({ spec, left: spec.times ?? 1 });
  }

  hang(route: RegExp | string, times = Number.POSITIVE_INFINITY): void {
    this.hangs.push({ route, left: times });
  }

  clear(): void {
    this.faults = [];
    this.hangs = [];
  }

  /** true when this request must never be answered (and counts it). */
  takeHang(k: RequestKey): boolean {
    const h = this.hangs.find((x) => x.left > 0 && routeMatches(x.route, k));
    if (h) h.left--;
    return h !== undefined;
  }

  /** The injected failure for this request, if one is armed (and counts it). */
  takeFault(k: RequestKey): Reply | undefined {
    const f = this.faults.find((x) => x.left > 0 && routeMatches(x.spec.route, k));
    if (!f) return undefined;
    f.left--;
    const { spec } = f;
    const headers: Record<string, string> = {};
    if (spec.retryAfter !== undefined) headers["retry-after"] = String(spec.retryAfter);
    if (spec.rateLimitReset !== undefined) {
      headers["x-ratelimit-remaining"] = "0";
      headers["x-ratelimit-reset"] = String(spec.rateLimitReset);
    }
    return { status: spec.status, headers, body: { message: spec.message ?? defaultMessage(spec) } };
  }
}
