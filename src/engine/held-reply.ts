import type { Clock } from "../domain/clock.js";
import type { ArtifactInput, Lease, StageCommit, Store } from "../domain/store.js";
import type { JsonObject } from "../domain/types.js";
import { crashPoint } from "./crash-points.js";

/** A reply ready to be saved: the stage's turns marker and the turn's transcript. */
export interface TurnWrite {
  key: string;
  /** The marker's new value; null for a cancelled turn, whose transcript alone is kept. */
  value: JsonObject | null;
  transcript: ArtifactInput | null;
}

/** What writing a reply takes: the store, the clock, and the run's lease that fences the write. */
interface WriteDeps {
  store: Store;
  clock: Clock;
  lease?: Lease;
}

/**
 * A reply as rows of its stage's record: the turn's transcript. The reply itself is not written:
 * saved replies stand in for an agent run only in a visit of the stage that is not recorded yet
 * (turns.ts), and the record ends this visit in the same commit, so they would never be read.
 */
export function turnRows(write: TurnWrite): Pick<StageCommit, "artifacts"> {
  return { artifacts: write.transcript === null ? [] : [write.transcript] };
}

/** Saves one reply durably in a commit of its own, fenced by the run's lease. */
export async function saveTurn(deps: WriteDeps, write: TurnWrite): Promise<void> {
  const now = deps.clock.now();
  await deps.store.transaction(
    async (tx) => {
      if (write.value !== null) await tx.setMarker(write.key, write.value, now);
      if (write.transcript !== null) await tx.saveArtifact(write.transcript, now);
    },
    { fence: deps.lease },
  );
}

/**
 * The reply of a run's single stage (not a parallel block's child) that is not saved yet: the
 * stage's record supersedes it (its transcript goes into the record's commit), unless something
 * needs it saved first. A stage whose agent changed nothing thus costs one commit instead of two
 * (issue 10), and a worker killed before that commit reruns the stage as it would have rerun the
 * agent: nothing else happened yet.
 *
 * It is saved on its own, at once, before anything that would make a rerun wrong: before the
 * stage's work is committed to git (a commit the store does not know of must come with a saved
 * reply, or the agent would work again on top of it), before the agent's work is found committed
 * by the agent itself, before another agent turn, and before a run ends without the record.
 * `agent-exited` is reached once the reply is durable, wherever that is.
 */
export class HeldReply {
  private held: TurnWrite | null = null;

  constructor(private readonly deps: WriteDeps) {}

  hold(write: TurnWrite): void {
    this.held = write;
  }

  /** Saves the held reply in a commit of its own; nothing when none is held. */
  async saveNow(): Promise<void> {
    const write = this.take();
    if (write === null) return;
    await saveTurn(this.deps, write);
    crashPoint("agent-exited");
  }

  /** The held reply, to go into a record's commit (which then reaches `agent-exited`). */
  take(): TurnWrite | null {
    const write = this.held;
    this.held = null;
    return write;
  }
}

/**
 * Keeps a reply the moment its agent exited: in `held`, for the stage's record, when the engine
 * records the stage itself; else saved now in a commit of its own. `agent-exited` is reached here
 * when the reply is not held (at once when there is nothing to write: a cancelled turn).
 */
export async function keepReply(
  deps: WriteDeps,
  held: HeldReply | undefined,
  write: TurnWrite | null,
): Promise<void> {
  if (write !== null && held) {
    held.hold(write);
    return;
  }
  if (write !== null) await saveTurn(deps, write);
  crashPoint("agent-exited");
}
