import type { StoreOps, TaskPatch } from "../../src/domain/store.js";
import type { JsonObject } from "../../src/domain/types.js";

/**
 * Stores `state` as a run's latest checkpoint the way an older fixpoint or a crash between two
 * steps would have left it: no stage row and no event, only the checkpoint and the task's fields.
 */
export async function putCheckpoint(
  store: Pick<StoreOps, "commitStage">,
  at: { taskId: string; runId: number },
  state: JsonObject,
  task: TaskPatch = {},
): Promise<void> {
  await store.commitStage({
    taskId: at.taskId,
    runId: at.runId,
    stage: null,
    checkpoint: { state },
    findings: [],
    events: [],
    task,
    now: 2,
  });
}
