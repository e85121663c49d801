import type { Lease, Store, TaskPatch } from "../domain/store.js";
import type { JsonObject } from "../domain/types.js";
import { type RunState, stateToJson } from "./state.js";

/**
 * A checkpoint written outside a stage (a run's start, `resume`, `retry`): the state, one event
 * saying why, and the task's position, in one transaction like every stage record.
 */
export async function writeCheckpoint(
  store: Store,
  opts: {
    taskId: string;
    runId: number;
    state: RunState;
    event: { type: string; data: JsonObject };
    task: TaskPatch;
    now: number;
    /** Fence the write by the worker's lease (see StageCommit.fence). */
    fence?: Lease;
  },
): Promise<void> {
  await store.commitStage({
    taskId: opts.taskId,
    runId: opts.runId,
    stage: null,
    checkpoint: { state: stateToJson(opts.state) },
    findings: [],
    events: [{ taskId: opts.taskId, runId: opts.runId, type: opts.event.type, data: opts.event.data }],
    task: opts.task,
    now: opts.now,
    fence: opts.fence,
  });
}
