import { ARTIFACT_MAX_BYTES } from "../domain/store.js";
import { afterNextSpawn, runAfterSpawnJobs } from "../util/after-spawn.js";

/** Held files' text, in bytes, past which they are written without waiting for the run's end. */
export const HELD_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The files of a run's agent transcripts (`.fixpoint/transcripts/<task>/`). Each transcript's text
 * goes into the store with the agent's reply, in the stage's commit: that is the record, and
 * `logs --agent` and the dashboard write the files missing here from it. So a file whose whole
 * text the store keeps is written when the run ends, not between two agents or beside the next
 * one: creating a file added 0.3-0.8 ms to a no-op stage of 4-7 ms on the benchmark machine, even
 * written while the next agent ran (docs/benchmarks.md). A file the store keeps only part of (a text over
 * ARTIFACT_MAX_BYTES) is written right after the next child starts (after-spawn.ts), as are the
 * held ones once their text passes HELD_MAX_BYTES. The run writes every one before it returns.
 */
export class PendingWrites {
  private held: Array<() => void> = [];
  private heldBytes = 0;

  /**
   * `write` writes one file and reports its own failure; `bytes` is the length of its text in
   * UTF-8, which decides when it is written.
   */
  file(write: () => void, bytes: number): void {
    if (bytes > ARTIFACT_MAX_BYTES) {
      afterNextSpawn(write);
      return;
    }
    this.held.push(write);
    this.heldBytes += bytes;
    if (this.heldBytes > HELD_MAX_BYTES) afterNextSpawn(this.release());
  }

  /** Writes every file not written yet, in the order they came: the run is about to return. */
  settle(): void {
    runAfterSpawnJobs();
    this.release()();
  }

  /** The held writes as one job; none are held afterwards. */
  private release(): () => void {
    const jobs = this.held;
    this.held = [];
    this.heldBytes = 0;
    return () => {
      for (const job of jobs) job();
    };
  }
}
