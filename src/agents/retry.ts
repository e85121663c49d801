import { type Clock, systemClock } from "../util/clock.js";

/**
 * Retries of transient failures (429, 5xx, connection reset) with exponential backoff and
 * jitter. Time and randomness are injected so tests never sleep.
 */
export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseMs: 2_000, maxMs: 30_000 };

export interface RetryDeps {
  clock: Clock;
  /** A number in [0, 1). */
  jitter: () => number;
}

/**
 * Delay before retry number `retry` (1 for the first retry): `base · 2^(retry-1)`, capped at
 * `max`, then scaled into [50 %, 100 %] by the jitter so that clients failing together do not
 * retry together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, jitter: () => number): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exp * (0.5 + 0.5 * jitter()));
}

export interface RetryOptions<T> {
  policy?: RetryPolicy;
  deps?: Partial<RetryDeps>;
  signal?: AbortSignal;
  /** Whether this outcome is worth another attempt. */
  shouldRetry: (outcome: T) => boolean;
  /** Told before each wait. Must not throw. */
  onRetry?: (outcome: T, retry: number, delayMs: number) => void;
}

/** Runs `attempt` until it succeeds, is not retryable, attempts run out, or `signal` aborts. */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, opts: RetryOptions<T>): Promise<T> {
  const policy = opts.policy ?? DEFAULT_RETRY;
  const clock = opts.deps?.clock ?? systemClock;
  const jitter = opts.deps?.jitter ?? Math.random;
  let outcome = await attempt(1);
  for (let n = 2; n <= policy.attempts; n++) {
    if (opts.signal?.aborted || !opts.shouldRetry(outcome)) return outcome;
    const delay = backoffDelay(n - 1, policy, jitter);
    opts.onRetry?.(outcome, n - 1, delay);
    await clock.sleep(delay, opts.signal);
    if (opts.signal?.aborted) return outcome;
    outcome = await attempt(n);
  }
  return outcome;
}
