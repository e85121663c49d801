import { type Clock, systemClock } from "./clock.js";

/**
 * The one retry policy of fixpoint: transient failures (429, 5xx, connection reset) are tried
 * again with exponential backoff and jitter, a wait the server asked for (retry-after, a rate
 * limit's reset) wins over the computed one, and a deadline or an abort stops the waiting. Each
 * use names its own numbers (AGENT_RETRY, GITHUB_RETRY); time and randomness are injected so
 * tests never sleep.
 */
export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

/** Agent runs are long and costly: few attempts, patient waits. */
export const AGENT_RETRY: RetryPolicy = { attempts: 3, baseMs: 2_000, maxMs: 30_000 };
/** GitHub requests are short; rate limits say when to come back. */
export const GITHUB_RETRY: RetryPolicy = { attempts: 4, baseMs: 1_000, maxMs: 30_000 };

export interface RetryDeps {
  clock: Clock;
  /** A number in [0, 1). */
  jitter: () => number;
}

/**
 * Delay before retry number `retry` (1 for the first retry). The server's own wait wins when it
 * gave one; otherwise `base · 2^(retry-1)`, capped at `max`, then scaled into [50 %, 100 %] by
 * the jitter so that clients failing together do not retry together.
 */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  jitter: () => number,
  serverWaitMs?: number,
): number {
  if (serverWaitMs !== undefined) return serverWaitMs;
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exp * (0.5 + 0.5 * jitter()));
}

export interface RetryOptions<T> {
  policy: RetryPolicy;
  deps?: Partial<RetryDeps>;
  signal?: AbortSignal;
  /** Epoch ms (on `deps.clock`): a retry whose wait would end after it is not made. */
  deadline?: number;
  /** Whether this outcome is worth another attempt. */
  shouldRetry: (outcome: T) => boolean;
  /** How long the server asked to wait after this outcome, when it said. */
  serverWaitMs?: (outcome: T) => number | undefined;
  /** Told before each wait. Must not throw. */
  onRetry?: (outcome: T, retry: number, delayMs: number) => void;
}

/**
 * Runs `attempt` (told its 1-based number) until it succeeds, is not retryable, attempts run
 * out, the next wait would pass the deadline, or `signal` aborts; returns the last outcome.
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, opts: RetryOptions<T>): Promise<T> {
  const clock = opts.deps?.clock ?? systemClock;
  const jitter = opts.deps?.jitter ?? Math.random;
  let outcome = await attempt(1);
  for (let n = 2; n <= opts.policy.attempts; n++) {
    if (opts.signal?.aborted || !opts.shouldRetry(outcome)) return outcome;
    const delay = backoffDelay(n - 1, opts.policy, jitter, opts.serverWaitMs?.(outcome));
    if (opts.deadline !== undefined && clock.now() + delay > opts.deadline) return outcome;
    opts.onRetry?.(outcome, n - 1, delay);
    await clock.sleep(delay, opts.signal);
    if (opts.signal?.aborted) return outcome;
    outcome = await attempt(n);
  }
  return outcome;
}
