import {
  addUsage,
  type ReviewVerdict,
  type Severity,
  type StageOutcome,
  ZERO_USAGE,
} from "../domain/types.js";
import { effectiveVerdict } from "../findings/review-parse.js";
import type { StageDef } from "../workflow/types.js";
import { type ReviewSection, storeArtifactFile, writeReviewSections } from "./artifacts.js";
import { getCount, setCount } from "./counters.js";
import type { StageContext, StageResult } from "./deps.js";
import { applyEffectToRegistry } from "./effects.js";
import { recordStage } from "./record.js";
import { registryFacts } from "./registry-facts.js";
import { type RunEnv, relCycle } from "./run-env.js";
import { runSingleStage } from "./single.js";
import type { PendingChild, RunState } from "./state.js";
import { foldStage } from "./step.js";
import { warmStart } from "./warm-start.js";

/**
 * A `parallel` stage runs its children concurrently (at most `max` at once) — all of them, even
 * when one fails (seed 000). Each finished child is recorded and checkpointed at once with its
 * effect held as pending, so a crash never reruns a finished child. Effects are applied only when
 * every child has finished, in declaration order, never completion order.
 */
export async function runParallel(
  stage: StageDef,
  ctx: StageContext,
  state: RunState,
  env: RunEnv,
): Promise<StageResult> {
  await runChildren(stage, ctx, state, env);
  if (ctx.signal.aborted) return aborted();

  // Merge in declaration order. Usage and visits were counted when each child was recorded.
  const outcomes: StageOutcome[] = [];
  const summaries: string[] = [];
  const sections: ReviewSection[] = [];
  for (const child of stage.children) {
    const p = state.pending[child.id];
    if (!p) continue;
    const summary = mergeChild(child, p, state, env, sections);
    outcomes.push(p.outcome);
    summaries.push(`${child.id}: ${summary}`);
  }
  if (sections.length > 0) {
    const { deps, task, runId } = env;
    const file = await writeReviewSections(deps.reviewsDir, task.id, state.cycle, sections, runId);
    await storeArtifactFile(deps.store, task.id, "review", file, deps.clock.now(), deps.lease);
  }
  state.pending = {};
  const anyFail = outcomes.some((o) => o === "fail");
  return {
    outcome: anyFail ? (outcomes.every((o) => o === "fail") ? "fail" : "partial_success") : "success",
    effect: { type: "none" },
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0,
    attempts: 0,
    summary: summaries.join("; "),
  };
}

/**
 * Runs the children not yet pending (finished before a crash), at most `max` at once, recording
 * each one as it finishes, one record at a time. Returns early once the run is aborted.
 */
async function runChildren(stage: StageDef, ctx: StageContext, state: RunState, env: RunEnv): Promise<void> {
  const children = stage.children;
  const limit = Math.max(1, Math.min(stage.max ?? children.length, children.length));
  let chain: Promise<void> = Promise.resolve();
  const serial = (f: () => Promise<void>): Promise<void> => {
    chain = chain.then(f, f);
    return chain;
  };
  const queue = children.filter((c) => !state.pending[c.id]);
  // The first reviewer writes the shared prompt prefix; the others start once it can be read.
  const warm = warmStart(queue, ctx);
  const worker = async (): Promise<void> => {
    for (let child = queue.shift(); child; child = queue.shift()) {
      await warm.ready(child);
      if (ctx.signal.aborted) return;
      const c = child;
      const started = ctx.deps.clock.now();
      ctx.deps.listener({
        type: "stage.started",
        taskId: ctx.task.id,
        stageId: c.id,
        kind: c.kind,
        cycle: relCycle(state),
        maxCycles: ctx.task.maxCycles,
      });
      const result = await runSingleStage(
        c,
        warm.leadContext(c, { ...ctx, visit: (getCount(state.visits, c.id) ?? 0) + 1 }),
      ).finally(() => warm.finished(c));
      if (ctx.signal.aborted) return;
      await serial(() => recordChild(stage, c, result, started, { ctx, state, env }));
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** Records a finished child with its effect held as pending, and counts its usage and visit. */
async function recordChild(
  stage: StageDef,
  child: StageDef,
  result: StageResult,
  started: number,
  { ctx, state, env }: { ctx: StageContext; state: RunState; env: RunEnv },
): Promise<void> {
  state.pending[child.id] = toPending(result);
  state.visits = setCount(state.visits, child.id, (getCount(state.visits, child.id) ?? 0) + 1);
  state.outcomes = setCount(state.outcomes, child.id, result.outcome);
  state.usage = addUsage(state.usage, result.usage);
  state.costUsd += result.costUsd;
  await recordStage(
    env,
    state,
    child,
    result,
    // The child's own verdict is known now (show --json reports it); its effects apply at the merge.
    { summary: null, verdict: childVerdict(result, ctx.deps.config.defaults.blockingSeverity) },
    { started, parentId: stage.id },
  );
}

/**
 * Applies one pending child's effect to the registry and folds it into the state (its review
 * section added to `sections`, for the block to write once); returns its summary.
 */
function mergeChild(
  child: StageDef,
  p: PendingChild,
  state: RunState,
  env: RunEnv,
  sections: ReviewSection[],
): string {
  const facts = applyEffectToRegistry(p.effect, env.registry, state.cycle, {
    blockingSeverity: env.deps.config.defaults.blockingSeverity,
  });
  const folded = foldStage(
    state,
    child,
    {
      outcome: p.outcome,
      failureReason: p.failureReason ?? undefined,
      usage: ZERO_USAGE,
      costUsd: 0,
      agent: p.agent,
      sessionId: p.sessionId,
      review: facts.review,
      gatesPassed: facts.gatesPassed,
    },
    registryFacts(env.registry),
    { countVisit: false },
  );
  Object.assign(state, folded);
  if (p.effect.type === "review")
    sections.push({ stageId: child.id, output: p.effect.output, verdict: facts.verdict });
  return facts.summary ?? p.outcome;
}

function toPending(r: StageResult): PendingChild {
  return {
    outcome: r.outcome,
    verdict: r.effect.type === "review" ? (r.effect.output.verdict as ReviewVerdict) : null,
    effect: r.effect,
    sessionId: r.sessionId ?? null,
    agent: r.agent ?? null,
    summary: r.summary ?? null,
    failureReason: r.failureReason ?? null,
  };
}

function aborted(): StageResult {
  return {
    outcome: "fail",
    failureClass: "cancelled",
    failureReason: "cancelled",
    effect: { type: "none" },
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0,
    attempts: 0,
  };
}

function childVerdict(r: StageResult, blockingSeverity: Severity): ReviewVerdict | null {
  return r.effect.type === "review" ? effectiveVerdict(r.effect.output, blockingSeverity) : null;
}

/**
 * A mutable copy of a state for a parallel block to work on: the maps it changes while its
 * children finish are copied, the rest is shared (and only read).
 */
export function workingCopy(run: Readonly<RunState>): RunState {
  return {
    ...run,
    pending: { ...run.pending },
    usage: { ...run.usage },
  };
}
