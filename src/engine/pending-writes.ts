import { runAfterSpawnJobs } from "../util/after-spawn.js";

/**
 * The writes a run lets finish off its critical path (agent transcripts' files: the text is in
 * the store with the agent's reply already, see AgentRequest.onTranscript). The run waits for all
 * of them before it returns, so every file of a finished run is there. A write's failure is its
 * own to report; here it only ends the wait.
 */
export class PendingWrites {
  private readonly pending = new Set<Promise<void>>();

  add(write: Promise<unknown>): void {
    const done = write.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(done);
    void done.then(() => this.pending.delete(done));
  }

  /** Resolves once every write added, including those added meanwhile, has ended. */
  async settle(): Promise<void> {
    // Files that wait for a next child (after-spawn.ts): there is none before the run returns.
    runAfterSpawnJobs();
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
