/** Time, injected so tests never sleep. `now` is epoch milliseconds; `sleep` resolves early on abort. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
