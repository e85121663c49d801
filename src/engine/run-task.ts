import type { Task } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import { Registry } from "../findings/registry.js";
import type { StageDef } from "../workflow/types.js";
import { budgetState } from "./budget.js";
import { crashPoint } from "./crash-points.js";
import { applyResult, decideNext } from "./decide.js";
import type { EngineDeps, StageContext } from "./deps.js";
import { finishRun } from "./finish.js";
import { runParallel } from "./parallel.js";
import { buildStageRecord, recordStage } from "./record.js";
import { LEASE_LOST, type RunEnd, type RunEnv, relCycle } from "./run-env.js";
import { ensureTaskWorktree, planRun, saveInterruptedWork } from "./run-setup.js";
import { runSingleStage } from "./single.js";
import type { RunState } from "./state.js";
import { hasSavedTurns } from "./turns.js";

export interface RunTaskOptions {
  signal: AbortSignal;
}

/**
 * Runs one claimed task until its workflow exits, a stop condition ends it, or it is interrupted.
 * The loop is: check bounds → run the stage → apply its effects → decide the next stage → commit
 * all of it in one transaction. Deciding is a pure function of the workflow, the state and the
 * registry; everything durable goes through `recordStage`.
 */
export async function runTask(claimed: Task, deps: EngineDeps, opts: RunTaskOptions): Promise<RunEnd> {
  // Our own abort too: a fenced write that finds the lease gone stops every agent still running
  // (the other children of a parallel stage) before the run is left to its new owner.
  const ctl = new AbortController();
  const follow = () => ctl.abort(opts.signal.reason);
  if (opts.signal.aborted) follow();
  else opts.signal.addEventListener("abort", follow, { once: true });
  try {
    return await runClaimedTask(claimed, deps, ctl);
  } finally {
    opts.signal.removeEventListener("abort", follow);
  }
}

async function runClaimedTask(claimed: Task, deps: EngineDeps, ctl: AbortController): Promise<RunEnd> {
  const signal = ctl.signal;
  const workflow = await deps.loadWorkflow(claimed.workflow);
  const task = await ensureTaskWorktree(claimed, deps);
  const workdir = task.worktreePath as string;
  const plan = await planRun(task, workflow, deps);
  const { run, state } = plan;
  if (plan.resumed && state.next !== null) {
    // Work an agent left on disk is kept as a WIP commit — unless its reply was saved (turns.ts):
    // then the resumed stage reuses the reply and commits that work as its own.
    const next = workflow.stages.get(state.next);
    const cycle = state.cycle + (next?.nextCycle ? 1 : 0);
    const at = (id: string) => ({ id, cycle, visit: (state.visits[id] ?? 0) + 1 });
    const stages = next ? [at(next.id), ...next.children.map((c) => at(c.id))] : [];
    if (!(await hasSavedTurns({ task, runId: run.id, deps }, stages))) {
      await saveInterruptedWork(task, workdir, deps, state.next);
    }
  }
  const registry = Registry.load(task.id, await deps.store.listFindings(task.id), {
    blockingSeverity: deps.config.defaults.blockingSeverity,
    now: () => deps.clock.now(),
  });
  const budget = await budgetState(task, run.id, deps);
  deps.listener({
    type: "task.started",
    taskId: task.id,
    title: task.title,
    runId: run.id,
    resumed: plan.resumed,
  });

  const env: RunEnv = { task, runId: run.id, workflow, registry, workdir, deps, counters: plan.counters };
  if (plan.finish) return finishRun(env, state, plan.finish);
  try {
    while (state.next !== null) {
      const stage = workflow.stages.get(state.next);
      if (!stage) return finishRun(env, state, stopped(`workflow has no stage \`${state.next}\``));
      const stop = checkBounds(stage, state, task, budget.left(state));
      if (stop) return finishRun(env, state, stop);
      if (signal.aborted) return finishRun(env, state, interrupted(signal, stage.id));

      // An interrupted stage runs again on resume, and entering it again starts its cycle again.
      const entry = { cycle: state.cycle, verdicts: state.verdicts, failedReviews: state.failedReviews };
      await beforeStage(stage, state, registry, workdir, deps);
      const ctx: StageContext = {
        task,
        runId: run.id,
        workflow,
        // A shallow copy: handlers read it, never write it (a deep copy per stage would cost
        // O(stages visited) each time: quadratic over a long run).
        state: { ...state },
        registry,
        visit: (state.visits[stage.id] ?? 0) + 1,
        workdir,
        signal,
        deps,
      };
      const started = deps.clock.now();
      deps.listener({
        type: "stage.started",
        taskId: task.id,
        stageId: stage.id,
        kind: stage.kind,
        cycle: relCycle(state),
        maxCycles: task.maxCycles,
      });
      crashPoint("stage-started");
      const result =
        stage.kind === "parallel"
          ? await runParallel(stage, ctx, state, env)
          : await runSingleStage(stage, ctx);
      if (signal.reason === LEASE_LOST) return leaseLost(stage.id);
      if (signal.aborted) {
        await saveInterruptedWork(task, workdir, deps, stage.id);
        Object.assign(state, entry);
        return finishRun(env, state, interrupted(signal, stage.id));
      }
      if (result.pause) {
        const reason = result.pause.reason;
        await recordStage(
          env,
          state,
          stage,
          result,
          { summary: result.summary ?? null, verdict: null },
          { started, pause: true, task: { status: "needs_human", reason } },
        );
        deps.listener({ type: "notice", taskId: task.id, message: `${task.id} paused: ${reason}` });
        return { kind: "paused", reason };
      }
      const applied = applyResult(stage, result, state, registry, deps);
      const next = decideNext(workflow, stage, result, state, registry, task, deps, budget);
      state.next = next.stage;
      if (next.end) {
        // The stage that ended the run is recorded in the run's finishing transaction.
        const last = await buildStageRecord(env, state, stage, result, applied, { started });
        return finishRun(env, state, next.end, last);
      }
      await recordStage(env, state, stage, result, applied, { started });
    }
    return finishRun(env, state, { kind: "exit", stageId: null });
  } catch (e) {
    // Another worker owns the task now: record nothing more, touch nothing.
    if ((e instanceof FixpointError && e.code === "lease_lost") || signal.reason === LEASE_LOST) {
      ctl.abort(LEASE_LOST);
      return leaseLost(state.next);
    }
    if (signal.aborted) return finishRun(env, state, interrupted(signal, state.next));
    return finishRun(env, state, stopped(`internal error: ${errorMessage(e)}`, e));
  }
}

function checkBounds(stage: StageDef, state: RunState, task: Task, budgetLeft: boolean) {
  const visits = state.visits[stage.id] ?? 0;
  if (visits >= stage.maxVisits) {
    return stopped(`stage ${stage.id} reached its bound of ${stage.maxVisits} visits`);
  }
  if (stage.nextCycle && relCycle(state) >= task.maxCycles) {
    // Starting this stage would begin fix cycle maxCycles+1. Whatever the workflow's routes say,
    // the run ends here and its verdict is derived as at an exit (MAX_CYCLES_REACHED while
    // blocking findings remain).
    return { kind: "exit" as const, stageId: null };
  }
  if (!budgetLeft && stage.kind !== "exit" && stage.kind !== "decision") {
    return { kind: "budget" as const, stageId: stage.id };
  }
  return null;
}

async function beforeStage(
  stage: StageDef,
  state: RunState,
  registry: Registry,
  workdir: string,
  deps: EngineDeps,
) {
  if (stage.nextCycle) {
    state.cycle += 1;
    state.verdicts = {};
    state.failedReviews = [];
  }
  if (stage.kind === "fix") {
    await registry.autoBlockDeleted((file) => deps.fileExists(workdir, file), state.cycle);
  }
}

function leaseLost(stageId: string | null): RunEnd {
  return { kind: "interrupted", reason: LEASE_LOST, stageId };
}

function stopped(reason: string, cause?: unknown): RunEnd {
  return { kind: "stopped", reason, cause };
}

function interrupted(signal: AbortSignal, stageId: string | null): RunEnd {
  const why = typeof signal.reason === "string" ? signal.reason : "interrupted";
  return { kind: "interrupted", reason: why, stageId };
}

export type { RunEnd, RunEnv };
export { LEASE_LOST, relCycle };
