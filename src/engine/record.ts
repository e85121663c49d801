import type { NewStageExecution, NewTaskEvent } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";
import type { StageDef } from "../workflow/types.js";
import { writeReviewSection } from "./artifacts.js";
import type { StageResult } from "./deps.js";
import type { AppliedEffect } from "./effects.js";
import type { RunEnv } from "./run-task.js";
import { relCycle } from "./run-task.js";
import { type RunState, stateToJson } from "./state.js";

/**
 * The one durable write per stage: the stage record, the registry changes with their events, the
 * checkpoint (including the next stage) and the task's position — in a single transaction, so a
 * killed worker resumes exactly after the last stage it finished.
 */
export async function recordStage(
  env: RunEnv,
  state: RunState,
  stage: StageDef,
  result: StageResult,
  applied: AppliedEffect,
  opts: { started: number; pause?: boolean; parentId?: string },
): Promise<void> {
  const { deps, task, runId } = env;
  const now = deps.clock.now();
  // Agent output can echo a key or token: what is stored and shown passes the redactor first.
  const summary = redactOrNull(result.summary ?? applied.summary);
  const failureReason = redactOrNull(result.failureReason ?? null);
  const record: NewStageExecution = {
    runId,
    taskId: task.id,
    stageId: stage.id,
    kind: stage.kind,
    visit: state.visits[stage.id] ?? 1,
    cycle: state.cycle,
    outcome: result.outcome,
    failureClass: result.failureClass ?? null,
    failureReason,
    verdict: applied.verdict,
    startedAt: opts.started,
    endedAt: now,
    usage: result.usage,
    costUsd: result.costUsd,
    headBefore: result.headBefore ?? null,
    headAfter: result.headAfter ?? null,
    sessionId: result.sessionId ?? null,
    summary,
    attempts: result.attempts,
  };
  // Children of a parallel stage get their section when the parent merges, in declaration order.
  if (result.effect.type === "review" && !opts.parentId) {
    await writeReviewSection(
      deps.reviewsDir,
      task.id,
      state.cycle,
      stage.id,
      result.effect.output,
      applied.verdict,
      runId,
    );
  }
  const drained = env.registry.drainChanges();
  const events: NewTaskEvent[] = [
    ...drained.events.map((e) => ({ ...e, runId })),
    ...(result.events ?? []).map((e) => ({ taskId: task.id, runId, type: e.type, data: e.data })),
    {
      taskId: task.id,
      runId,
      type: opts.pause ? "stage.paused" : "stage.finished",
      data: {
        stage: stage.id,
        kind: stage.kind,
        cycle: state.cycle,
        outcome: result.outcome,
        summary,
        reason: failureReason ?? result.pause?.reason ?? null,
        next: state.next,
      },
    },
  ];
  await deps.store.commitStage({
    taskId: task.id,
    runId,
    stage: record,
    checkpoint: { state: stateToJson(state) },
    findings: drained.findings,
    events,
    task: { cycle: relCycle(state), currentStage: state.next },
    now,
    workerId: deps.workerId,
  });
  deps.listener({
    type: "stage.finished",
    taskId: task.id,
    stageId: stage.id,
    kind: stage.kind,
    cycle: relCycle(state),
    maxCycles: task.maxCycles,
    outcome: result.outcome,
    summary,
    durationMs: now - opts.started,
    costUsd: result.costUsd,
    failureReason,
  });
}

function redactOrNull(text: string | null): string | null {
  return text === null ? null : redactSecrets(text);
}
