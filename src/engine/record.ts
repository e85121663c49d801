import type { StageCommit } from "../domain/store.js";
import type { NewStageExecution, NewTaskEvent } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";
import type { StageDef } from "../workflow/types.js";
import { storeArtifactFile, writeReviewSections } from "./artifacts.js";
import { encodeCheckpoint, writeSnapshot } from "./checkpoint.js";
import { getCount } from "./counters.js";
import { crashPoint } from "./crash-points.js";
import type { StageResult } from "./deps.js";
import type { AppliedEffect } from "./effects.js";
import { turnRows } from "./held-reply.js";
import { type RunEnv, relCycle } from "./run-env.js";
import type { RunState } from "./state.js";

export interface StageRecordOpts {
  started: number;
  pause?: boolean;
  parentId?: string;
}

/** A stage's record and events, ready to go into a store commit (with `finishRun`'s or alone). */
export interface StageRecord {
  stage: NewStageExecution;
  events: NewTaskEvent[];
  /** Told to the listener once the commit holding the record succeeded. */
  announce: () => void;
}

/**
 * Builds a finished stage's record (redacted summary and reason), its events and the registry
 * changes it made, and writes its review artifact section. Writes nothing to the store: the
 * caller commits it — alone (`recordStage`) or together with the end of the run (`finishRun`).
 */
export async function buildStageRecord(
  env: RunEnv,
  state: RunState,
  stage: StageDef,
  result: StageResult,
  applied: AppliedEffect,
  opts: StageRecordOpts,
): Promise<StageRecord> {
  const { deps, task, runId } = env;
  const now = deps.clock.now();
  // Agent output can echo a key or token: what is stored and shown passes the redactor first.
  const told: Told = {
    summary: redactOrNull(result.summary ?? applied.summary, env.redactEnv),
    failureReason: redactOrNull(result.failureReason ?? null, env.redactEnv),
  };
  const record = executionRecord(env, state, stage, result, {
    ...told,
    verdict: applied.verdict,
    startedAt: opts.started,
    endedAt: now,
  });
  // Children of a parallel stage get their section when the parent merges, in declaration order.
  if (result.effect.type === "review" && !opts.parentId) {
    const file = await writeReviewSections(
      deps.reviewsDir,
      task.id,
      state.cycle,
      [{ stageId: stage.id, output: result.effect.output, verdict: applied.verdict }],
      runId,
    );
    await storeArtifactFile(deps.store, task.id, "review", file, now, deps.lease);
  }
  const events = stageEvents(env, state, stage, result, told, opts.pause === true);
  const announce = () =>
    deps.listener({
      type: "stage.finished",
      taskId: task.id,
      stageId: stage.id,
      kind: stage.kind,
      cycle: relCycle(state),
      maxCycles: task.maxCycles,
      outcome: result.outcome,
      summary: told.summary,
      durationMs: now - opts.started,
      costUsd: result.costUsd,
      failureReason: told.failureReason,
    });
  return { stage: record, events, announce };
}

/** A stage's summary and failure reason as stored and shown: redacted. */
interface Told {
  summary: string | null;
  failureReason: string | null;
}

/** The stage execution row for a finished stage. */
function executionRecord(
  env: RunEnv,
  state: RunState,
  stage: StageDef,
  result: StageResult,
  at: Told & { verdict: AppliedEffect["verdict"]; startedAt: number; endedAt: number },
): NewStageExecution {
  return {
    runId: env.runId,
    taskId: env.task.id,
    stageId: stage.id,
    kind: stage.kind,
    visit: getCount(state.visits, stage.id) ?? 1,
    cycle: state.cycle,
    outcome: result.outcome,
    failureClass: result.failureClass ?? null,
    failureReason: at.failureReason,
    verdict: at.verdict,
    startedAt: at.startedAt,
    endedAt: at.endedAt,
    usage: result.usage,
    costUsd: result.costUsd,
    headBefore: result.headBefore ?? null,
    headAfter: result.headAfter ?? null,
    sessionId: result.sessionId ?? null,
    summary: at.summary,
    attempts: result.attempts,
  };
}

/** The stage's own events, then its `stage.finished` (or `stage.paused`) event. */
function stageEvents(
  env: RunEnv,
  state: RunState,
  stage: StageDef,
  result: StageResult,
  told: Told,
  pause: boolean,
): NewTaskEvent[] {
  const { task, runId } = env;
  return [
    ...(result.events ?? []).map((e) => ({ taskId: task.id, runId, type: e.type, data: e.data })),
    {
      taskId: task.id,
      runId,
      type: pause ? "stage.paused" : "stage.finished",
      data: {
        stage: stage.id,
        kind: stage.kind,
        cycle: state.cycle,
        outcome: result.outcome,
        summary: told.summary,
        reason: told.failureReason ?? result.pause?.reason ?? null,
        next: state.next,
      },
    },
  ];
}

/**
 * The one durable write per stage: the stage record, the registry changes with their events and
 * the checkpoint (including the next stage) in a single fenced transaction, so a killed worker
 * resumes exactly after the last stage it finished. The task row's position (shown, never decided
 * from) goes with it when due (task-position.ts); a pause's status and reason always do.
 */
export async function recordStage(
  env: RunEnv,
  state: RunState,
  stage: StageDef,
  result: StageResult,
  applied: AppliedEffect,
  opts: StageRecordOpts & { task?: StageCommit["task"] },
): Promise<void> {
  const built = await buildStageRecord(env, state, stage, result, applied, opts);
  const { deps, task, runId } = env;
  const drained = env.registry.drainChanges();
  const write = encodeCheckpoint(state, env.counters, [stage.id], { taskId: task.id, runId });
  const commit = {
    taskId: task.id,
    runId,
    stage: built.stage,
    checkpoint: { state: write.state },
    ...(write.markers.length > 0 ? { markers: write.markers } : {}),
    findings: drained.findings,
    events: [...drained.events.map((e) => ({ ...e, runId })), ...built.events],
    ...(hasLearnings(drained.learnings) ? { learnings: drained.learnings } : {}),
    task: await env.position.forRecord(
      { cycle: relCycle(state), currentStage: state.next, ...opts.task },
      built.stage.endedAt,
      opts.task !== undefined,
    ),
    now: built.stage.endedAt,
  };
  // The remote gets the commit before the checkpoint naming it exists (branch-sync.ts).
  await env.branch?.push(built.stage.headAfter);
  // The stage's reply, when it was held for this commit (held-reply.ts): its transcript goes in.
  const reply = env.reply.take();
  const withReply = reply === null ? commit : { ...commit, ...turnRows(reply) };
  if (write.snapshot === null) await deps.store.commitStage({ ...withReply, fence: deps.lease });
  else {
    await deps.store.transaction(
      async (tx) => {
        await tx.commitStage(withReply);
        await writeSnapshot(tx, write, commit.now);
      },
      { fence: deps.lease },
    );
  }
  if (reply !== null) crashPoint("agent-exited");
  crashPoint("checkpoint-written");
  built.announce();
}

/** Whether a stage taught a learning or counted a hit (most commit neither). */
export function hasLearnings(l: { add: unknown[]; hits: unknown[] }): boolean {
  return l.add.length > 0 || l.hits.length > 0;
}

function redactOrNull(text: string | null, redactEnv: NodeJS.ProcessEnv): string | null {
  return text === null ? null : redactSecrets(text, redactEnv);
}
