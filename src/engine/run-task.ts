import type { Task } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import { Registry } from "../findings/registry.js";
import type { StageDef, Workflow } from "../workflow/types.js";
import { budgetState } from "./budget.js";
import { applyResult, decideNext } from "./decide.js";
import type { EngineDeps, StageContext } from "./deps.js";
import { finishRun, type RunEnd } from "./finish.js";
import { runParallel } from "./parallel.js";
import { checkPricing } from "./pricing-check.js";
import { recordStage } from "./record.js";
import { ensureTaskWorktree, planRun, saveInterruptedWork } from "./run-setup.js";
import { runSingleStage } from "./single.js";
import type { RunState } from "./state.js";

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
  const workflow = await deps.loadWorkflow(claimed.workflow);
  const task = await ensureTaskWorktree(claimed, deps);
  const workdir = task.worktreePath as string;
  const plan = await planRun(task, workflow, deps);
  const { run, state } = plan;
  if (plan.resumed) await saveInterruptedWork(task, workdir, deps, state.next);
  const registry = Registry.load(task.id, await deps.store.listFindings(task.id), {
    blockingSeverity: deps.config.defaults.blockingSeverity,
    now: () => deps.clock.now(),
  });
  // A model without a known price: warn once per run; a USD budget blind to it is not trusted.
  const pricing = checkPricing(workflow, task, deps.agents);
  const budget = await budgetState({ ...task, budget: pricing.budget }, run.id, deps);
  deps.listener({
    type: "task.started",
    taskId: task.id,
    title: task.title,
    runId: run.id,
    resumed: plan.resumed,
  });

  const env = { task, runId: run.id, workflow, registry, workdir, deps };
  if (pricing.notice) deps.listener({ type: "notice", taskId: task.id, message: pricing.notice });
  if (pricing.refuse) return finishRun(env, state, stopped(pricing.refuse));
  try {
    while (state.next !== null) {
      const stage = workflow.stages.get(state.next);
      if (!stage) return finishRun(env, state, stopped(`workflow has no stage \`${state.next}\``));
      const stop = checkBounds(stage, state, task, budget.left(state));
      if (stop) return finishRun(env, state, stop);
      if (opts.signal.aborted) return finishRun(env, state, interrupted(opts.signal, stage.id));

      // An interrupted stage runs again on resume, and entering it again starts its cycle again.
      const entry = { cycle: state.cycle, verdicts: state.verdicts, failedReviews: state.failedReviews };
      await beforeStage(stage, state, registry, workdir, deps);
      const ctx: StageContext = {
        task,
        runId: run.id,
        workflow,
        state: structuredClone(state),
        registry,
        visit: (state.visits[stage.id] ?? 0) + 1,
        workdir,
        signal: opts.signal,
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
      const result =
        stage.kind === "parallel"
          ? await runParallel(stage, ctx, state, env)
          : await runSingleStage(stage, ctx);
      if (opts.signal.reason === LEASE_LOST) return leaseLost(stage.id);
      if (opts.signal.aborted) {
        await saveInterruptedWork(task, workdir, deps, stage.id);
        Object.assign(state, entry);
        return finishRun(env, state, interrupted(opts.signal, stage.id));
      }
      if (result.pause) {
        await recordStage(
          env,
          state,
          stage,
          result,
          { summary: result.summary ?? null, verdict: null },
          { started, pause: true },
        );
        await deps.store.updateTask(
          task.id,
          { status: "needs_human", reason: result.pause.reason },
          deps.clock.now(),
        );
        deps.listener({
          type: "notice",
          taskId: task.id,
          message: `${task.id} paused: ${result.pause.reason}`,
        });
        return { kind: "paused", reason: result.pause.reason };
      }
      const applied = applyResult(stage, result, state, registry, deps);
      const next = decideNext(workflow, stage, result, state, registry, task, deps, budget);
      state.next = next.stage;
      await recordStage(env, state, stage, result, applied, { started });
      if (next.end) return finishRun(env, state, next.end);
    }
    return finishRun(env, state, { kind: "exit", stageId: null });
  } catch (e) {
    // Another worker owns the task now: record nothing more, touch nothing.
    if ((e instanceof FixpointError && e.code === "lease_lost") || opts.signal.reason === LEASE_LOST) {
      return leaseLost(state.next);
    }
    if (opts.signal.aborted) return finishRun(env, state, interrupted(opts.signal, state.next));
    return finishRun(env, state, stopped(`internal error: ${errorMessage(e)}`, e));
  }
}

/** Cycles counted from the run lineage's base (a review-feedback resume starts again at 1). */
export function relCycle(state: RunState): number {
  return state.cycle - (state.cycleBase ?? 0);
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

/** The abort reason a worker gives when its lease on the task was taken over. */
export const LEASE_LOST = "lease lost";

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

export type { RunEnd };
export type RunEnv = {
  task: Task;
  runId: number;
  workflow: Workflow;
  registry: Registry;
  workdir: string;
  deps: EngineDeps;
};
