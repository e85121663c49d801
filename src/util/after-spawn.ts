/**
 * Small synchronous jobs (an agent transcript's file) that wait for the next child process to be
 * started and then run at once, while that child starts up and works, instead of between two
 * agents. Between two agents the worker is on a stage's critical path; once the next child is
 * started it waits for that child anyway. On the benchmark machine, a no-op stage's transcript
 * cost it 0.3 ms more written at once from the thread pool than written this way
 * (docs/benchmarks.md).
 *
 * A job waits at most LATEST_MS for a child; `runAfterSpawnJobs` runs every waiting job at once
 * (startChild after each start, a run before it returns). A job must not throw.
 */
export const LATEST_MS = 20;

const waiting: Array<() => void> = [];
let timer: ReturnType<typeof setTimeout> | null = null;

/** Queues `job` to run right after the next child process is started, or LATEST_MS from now. */
export function afterNextSpawn(job: () => void): void {
  waiting.push(job);
  timer ??= setTimeout(runAfterSpawnJobs, LATEST_MS);
}

/** Runs every waiting job now, in the order they were queued. */
export function runAfterSpawnJobs(): void {
  if (timer !== null) {
    clearTimeout(timer);
    timer = null;
  }
  for (let job = waiting.shift(); job !== undefined; job = waiting.shift()) job();
}
