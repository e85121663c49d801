import type { TaskPatch } from "../domain/store.js";
import { monotonicMs } from "./lease-keeper.js";

/** The task row's position is written at most this often (ms) while stages keep finishing. */
export const POSITION_EVERY_MS = 250;

/**
 * The task row's position in its run (current stage, cycle), which `status`, the dashboard and
 * `show` display. Writing it costs more than the rest of a stage's record: the row, its listing
 * index and the precomputed lines of `status` all change (issue 10: 0.11 ms of a 0.9 ms stage).
 * So a stage record carries it when the last one written is POSITION_EVERY_MS old or more; a
 * newer position not carried by any record is written by a timer that long after the last, so
 * the row is never more than that behind a running task, however long the next stage takes.
 *
 * What the engine decides from (the checkpoint) is written with every stage; this row is only
 * shown. A patch that changes more than the position (a pause's status and reason) is written
 * at once, after any position being written, so an older position never lands on top of it.
 */
export class TaskPosition {
  private lastWritten = Number.NEGATIVE_INFINITY;
  private pending: { patch: TaskPatch; now: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private stopped = false;

  /**
   * `write` stores a position (a fenced update of the task; its failure is ignored: a later
   * record or the run's end writes the row again). `elapsed` is a monotonic clock in ms.
   */
  constructor(
    private readonly write: (patch: TaskPatch, now: number) => Promise<void>,
    private readonly everyMs = POSITION_EVERY_MS,
    private readonly elapsed: () => number = monotonicMs,
  ) {}

  /**
   * The patch a stage record carries: `patch` itself when due (or `urgent`: it holds more than
   * the position), else null, with the position left to the timer. `now` is the record's time.
   */
  async forRecord(patch: TaskPatch, now: number, urgent = false): Promise<TaskPatch | null> {
    const at = this.elapsed();
    if (!urgent && !this.stopped && at - this.lastWritten < this.everyMs) {
      this.pending = { patch, now };
      if (this.timer === null) {
        this.timer = setTimeout(() => this.flush(), this.lastWritten + this.everyMs - at);
        this.timer.unref();
      }
      return null;
    }
    this.cancel();
    if (this.writing !== null) await this.writing;
    this.lastWritten = at;
    return patch;
  }

  /** Drops a position not yet written and waits for one being written: the run's end writes its own. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel();
    if (this.writing !== null) await this.writing;
  }

  private cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }

  private flush(): void {
    this.timer = null;
    const p = this.pending;
    this.pending = null;
    if (p === null || this.stopped) return;
    this.lastWritten = this.elapsed();
    const done = this.write(p.patch, p.now).then(
      () => undefined,
      () => undefined,
    );
    this.writing = done;
    void done.then(() => {
      if (this.writing === done) this.writing = null;
    });
  }
}
