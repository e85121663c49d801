import type { Task } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import { Registry } from "../findings/registry.js";
import { afterNextSpawn } from "../util/after-spawn.js";
import { collectYoungGarbage } from "../util/young-garbage.js";
import type { StageDef, Workflow } from "../workflow/types.js";
import { inThisClone, openBranchSync, recordInThisClone } from "./branch-sync.js";
import { type BudgetState, budgetState } from "./budget.js";
import { getCount } from "./counters.js";
import { crashPoint } from "./crash-points.js";
import type { EngineDeps, StageContext, StageResult } from "./deps.js";
import { type AppliedEffect, applyEffectToRegistry, type EffectFacts } from "./effects.js";
import { finishRun } from "./finish.js";
import { HeldReply } from "./held-reply.js";
import { exceedsMaxStages, maxStagesFor } from "./max-stages.js";
import { runParallel, workingCopy } from "./parallel.js";
import { PendingWrites } from "./pending-writes.js";
import { checkPricing, type PricingCheck } from "./pricing-check.js";
import { buildStageRecord, recordStage } from "./record.js";
import { registryFacts } from "./registry-facts.js";
import { DRAINED, LEASE_LOST, type RunEnd, type RunEnv, relCycle } from "./run-env.js";
import { ensureTaskWorktree, planRun, type RunPlan, saveInterruptedWork } from "./run-setup.js";
import { runSingleStage } from "./single.js";
import type { RunState } from "./state.js";
import { type StageFacts, type StepOutput, type StepState, step } from "./step.js";
import { TaskPosition } from "./task-position.js";
import { hasSavedTurns } from "./turns.js";

export interface RunTaskOptions {
  signal: AbortSignal;
  /** Aborted when the worker drains: the running stage finishes and is recorded, no next one starts. */
  drain?: AbortSignal;
}

/**
 * Runs one claimed task until its workflow exits, a stop condition ends it, or it is interrupted.
 * This is the interpreter of the pure engine step (step.ts): it performs each effect the step
 * asks for — run a stage, record it, finish the run — and feeds the results back as events.
 * Everything durable goes through `recordStage` and `finishRun`, one transaction each.
 */
export async function runTask(claimed: Task, deps: EngineDeps, opts: RunTaskOptions): Promise<RunEnd> {
  // Our own abort too: a fenced write that finds the lease gone stops every agent still running
  // (the other children of a parallel stage) before the run is left to its new owner.
  const ctl = new AbortController();
  const follow = () => ctl.abort(opts.signal.reason);
  if (opts.signal.aborted) follow();
  else opts.signal.addEventListener("abort", follow, { once: true });
  try {
    return await runClaimedTask(claimed, deps, ctl, opts.drain);
  } finally {
    opts.signal.removeEventListener("abort", follow);
  }
}

async function runClaimedTask(
  claimed: Task,
  deps: EngineDeps,
  ctl: AbortController,
  drain?: AbortSignal,
): Promise<RunEnd> {
  const { env, plan, pricing, budget } = await openRun(claimed, deps, ctl);
  try {
    return await runOpened(env, { plan, pricing, budget }, ctl, drain);
  } finally {
    await env.position.stop();
    env.writes.settle();
  }
}

async function runOpened(
  env: RunEnv,
  { plan, pricing, budget }: { plan: RunPlan; pricing: PricingCheck; budget: BudgetState },
  ctl: AbortController,
  drain?: AbortSignal,
): Promise<RunEnd> {
  const { task, workflow, deps } = env;
  const state = plan.state;
  if (plan.finish) return finishRun(env, { ...state }, plan.finish);
  if (pricing.notice) deps.listener({ type: "notice", taskId: task.id, message: pricing.notice });
  if (pricing.refuse) return finishRun(env, { ...state }, stopped(pricing.refuse));
  const rules = {
    workflow,
    maxCycles: task.maxCycles,
    budget: pricing.budget,
    prior: { usd: budget.priorUsd, tokens: budget.priorTokens },
    maxStages: maxStagesFor(deps.config, workflow),
  };
  const tooLong = exceedsMaxStages(workflow, state, rules.maxStages);
  if (tooLong) return finishRun(env, { ...state }, { kind: "stopped", reason: tooLong, stageId: state.next });
  return interpret(env, { rules, run: state }, ctl, drain);
}

/**
 * A run's one-time work, done right after its first child process (an agent, a git command) is
 * started, while the worker waits for it anyway, instead of between two agents: the store
 * prepares what a stage's record runs, and the young generation that starting the command and
 * the run filled is collected (2-4 ms, which otherwise fell on the second or third stage).
 */
function startUpWhileTheFirstChildRuns(deps: EngineDeps): void {
  afterNextSpawn(() => {
    deps.store.prepareStageRecords?.();
    collectYoungGarbage();
  });
}

/**
 * Sets a claimed task up to run in this clone: its worktree, the run to start or resume, the
 * branch sync, the work a dead worker left, its findings, and the pricing and budget checks.
 */
async function openRun(
  claimed: Task,
  deps: EngineDeps,
  ctl: AbortController,
): Promise<{ env: RunEnv; plan: RunPlan; pricing: PricingCheck; budget: BudgetState }> {
  const workflow = await deps.loadWorkflow(claimed.workflow);
  // Stored paths may be another clone's: this clone's repository and worktree (branch-sync.ts).
  const task = inThisClone(await ensureTaskWorktree(await recordInThisClone(claimed, deps), deps), deps);
  const workdir = task.worktreePath as string;
  const plan = await planRun(task, workflow, deps);
  startUpWhileTheFirstChildRuns(deps);
  const { run, state } = plan;
  const branch = await openBranchSync(task, workdir, deps, {
    signal: ctl.signal,
    runId: run.id,
    stages: stagesAt(workflow, state.next),
  });
  if (plan.resumed && state.next !== null) await keepLeftWork(task, run.id, workflow, state, workdir, deps);
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
  const env: RunEnv = {
    task,
    runId: run.id,
    workflow,
    registry,
    workdir,
    deps,
    counters: plan.counters,
    redactEnv: { ...process.env },
    writes: new PendingWrites(),
    savedTurns: plan.fresh === true ? new Set() : null,
    reply: new HeldReply(deps),
    position: new TaskPosition(async (patch, now) => {
      await deps.store.transaction((tx) => tx.updateTask(task.id, patch, now), { fence: deps.lease });
    }),
  };
  if (branch) env.branch = branch;
  return { env, plan, pricing, budget };
}

/**
 * The interpreter loop: performs each effect the step asks for (run a stage, record it, finish
 * the run) and feeds the results back, until the run ends. A failure ends the run as stopped or
 * interrupted, unless another worker owns the task now.
 */
async function interpret(
  env: RunEnv,
  start: StepState,
  ctl: AbortController,
  drain?: AbortSignal,
): Promise<RunEnd> {
  let current = start;
  try {
    let out = step(current, { type: "continue" });
    let last: Executed | null = null;
    for (;;) {
      const effect = out.effects[0];
      if (effect === undefined) return finishRun(env, { ...out.state.run }, { kind: "exit", stageId: null });
      if (effect.type === "finish") {
        const record =
          last && effect.recordStageId === last.stage.id
            ? await buildStageRecord(env, { ...out.state.run }, last.stage, last.result, last.applied, {
                started: last.started,
              })
            : undefined;
        return finishRun(env, { ...out.state.run }, effect.end, record);
      }
      if (effect.type === "record") {
        if (!last) throw new FixpointError("internal", `no result to record for stage ${effect.stageId}`);
        await recordStage(env, { ...out.state.run }, last.stage, last.result, last.applied, {
          started: last.started,
        });
        current = out.state;
        last = null;
        out = step(current, { type: "continue" });
        continue;
      }
      // Draining: the checkpoint already holds everything done; the next owner starts this stage.
      if (drain?.aborted) return { kind: "interrupted", reason: DRAINED, stageId: effect.stage.id };
      const ran = await execute(env, effect.stage, current, out.state, ctl.signal);
      if ("end" in ran) return ran.end;
      last = ran.executed;
      out = ran.out;
    }
  } catch (e) {
    // Another worker owns the task now: record nothing more, touch nothing.
    if ((e instanceof FixpointError && e.code === "lease_lost") || ctl.signal.reason === LEASE_LOST) {
      ctl.abort(LEASE_LOST);
      return leaseLost(current.run.next);
    }
    const at = { ...current.run };
    if (ctl.signal.aborted) return finishRun(env, at, interrupted(ctl.signal, at.next));
    // A refused push and the like: said as git says it, and `retry` continues from that stage.
    if (e instanceof FixpointError && e.code === "git" && e.retryable)
      return finishRun(env, at, stopped(e.message, e));
    return finishRun(env, at, stopped(`internal error: ${errorMessage(e)}`, e));
  }
}

/** A stage that ran, kept until the step says how to record it. */
interface Executed {
  stage: StageDef;
  result: StageResult;
  applied: AppliedEffect;
  started: number;
}

/**
 * Performs a `run-stage` effect: runs the stage from the state the step entered it with, applies
 * its effect to the registry and asks the step what follows. An interrupted stage leaves the run
 * at the state before it (entering again starts its cycle again); a paused one is recorded.
 */
async function execute(
  env: RunEnv,
  stage: StageDef,
  before: StepState,
  entered: StepState,
  signal: AbortSignal,
): Promise<{ end: RunEnd } | { executed: Executed; out: StepOutput }> {
  const { task, deps, registry, workdir } = env;
  if (signal.aborted) return { end: await finishRun(env, { ...before.run }, interrupted(signal, stage.id)) };
  const run = entered.run;
  if (stage.kind === "fix") {
    await registry.autoBlockDeleted((file) => deps.fileExists(workdir, file), run.cycle);
  }
  // A parallel block checkpoints its children as they finish: it works on a copy of its own.
  const work = stage.kind === "parallel" ? workingCopy(run) : null;
  const ctx = stageContext(env, stage, run, signal);
  const started = deps.clock.now();
  deps.listener({
    type: "stage.started",
    taskId: task.id,
    stageId: stage.id,
    kind: stage.kind,
    cycle: relCycle(run),
    maxCycles: task.maxCycles,
  });
  crashPoint("stage-started");
  const result = work ? await runParallel(stage, ctx, work, env) : await runSingleStage(stage, ctx);
  if (signal.reason === LEASE_LOST) return { end: leaseLost(stage.id) };
  if (signal.aborted) return { end: await endInterrupted(env, stage, before, work, signal) };
  if (result.pause)
    return { end: await recordPause(env, stage, run, result, { started, reason: result.pause.reason }) };
  const effect = applyEffectToRegistry(result.effect, registry, run.cycle, {
    blockingSeverity: deps.config.defaults.blockingSeverity,
  });
  const out = step(entered, {
    type: "stage-finished",
    stageId: stage.id,
    facts: stageFacts(result, effect, work),
    registry: registryFacts(registry),
  });
  const applied = { summary: effect.summary, verdict: effect.verdict };
  return { executed: { stage, result, applied, started }, out };
}

/** What a stage's handler sees: the run state as the step entered the stage, read only. */
function stageContext(env: RunEnv, stage: StageDef, run: RunState, signal: AbortSignal): StageContext {
  return {
    task: env.task,
    runId: env.runId,
    workflow: env.workflow,
    // A shallow copy: handlers read it, never write it (a deep copy per stage would cost
    // O(stages visited) each time: quadratic over a long run).
    state: { ...run },
    registry: env.registry,
    visit: (getCount(run.visits, stage.id) ?? 0) + 1,
    workdir: env.workdir,
    signal,
    deps: env.deps,
    writes: env.writes,
    savedTurns: env.savedTurns,
    // A parallel block's children are recorded one by one as they finish: each saves its own reply.
    ...(stage.kind === "parallel" ? {} : { reply: env.reply }),
  };
}

/**
 * Ends a run whose stage was interrupted: its work is saved and the run left at the state before
 * the stage. Entering the stage again starts its cycle again; children a parallel block already
 * recorded stay recorded (pending in the checkpoint), so they do not run twice.
 */
async function endInterrupted(
  env: RunEnv,
  stage: StageDef,
  before: StepState,
  work: RunState | null,
  signal: AbortSignal,
): Promise<RunEnd> {
  // The reply first: the work on disk is its answer, and the WIP commit keeps that work.
  await env.reply.saveNow();
  await saveInterruptedWork(env.task, env.workdir, env.deps, stage.id);
  const { cycle, verdicts, failedReviews } = before.run;
  const at = work ? { ...work, cycle, verdicts, failedReviews } : { ...before.run };
  return finishRun(env, at, interrupted(signal, stage.id));
}

/** Records a stage that waits for a person, with the task marked `needs_human`, and says so. */
async function recordPause(
  env: RunEnv,
  stage: StageDef,
  run: RunState,
  result: StageResult,
  { started, reason }: { started: number; reason: string },
): Promise<RunEnd> {
  const { task, deps } = env;
  const applied = { summary: result.summary ?? null, verdict: null };
  const task2 = { status: "needs_human" as const, reason };
  await recordStage(env, { ...run }, stage, result, applied, { started, pause: true, task: task2 });
  deps.listener({ type: "notice", taskId: task.id, message: `${task.id} paused: ${reason}` });
  deps.listener({ type: "task.paused", taskId: task.id, stageId: stage.id, reason });
  return { kind: "paused", reason };
}

/** What the step needs to know of a finished stage (a parallel block's merged state included). */
function stageFacts(result: StageResult, effect: EffectFacts, work: RunState | null): StageFacts {
  return {
    outcome: result.outcome,
    failureClass: result.failureClass,
    failureReason: result.failureReason,
    usage: result.usage,
    costUsd: result.costUsd,
    agent: result.agent,
    sessionId: result.sessionId,
    context: result.context,
    review: effect.review,
    gatesPassed: effect.gatesPassed,
    merged: work ?? undefined,
  };
}

/**
 * Work an agent left on disk when its worker died is kept as a WIP commit — unless its reply
 * was saved (turns.ts): then the resumed stage reuses the reply and commits that work itself.
 */
async function keepLeftWork(
  task: Task,
  runId: number,
  workflow: Workflow,
  state: RunState,
  workdir: string,
  deps: EngineDeps,
): Promise<void> {
  const next = state.next === null ? undefined : workflow.stages.get(state.next);
  const cycle = state.cycle + (next?.nextCycle ? 1 : 0);
  const at = (id: string) => ({ id, cycle, visit: (getCount(state.visits, id) ?? 0) + 1 });
  const stages = next ? [at(next.id), ...next.children.map((c) => at(c.id))] : [];
  if (!(await hasSavedTurns({ task, runId, deps, workdir }, stages))) {
    await saveInterruptedWork(task, workdir, deps, state.next);
  }
}

/** A stage and its children (a parallel block): whose saved replies a reset worktree invalidates. */
function stagesAt(workflow: Workflow, id: string | null): string[] {
  const stage = id === null ? undefined : workflow.stages.get(id);
  return stage ? [stage.id, ...stage.children.map((c) => c.id)] : [];
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
export { DRAINED, LEASE_LOST, relCycle };
