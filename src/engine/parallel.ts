import { addUsage, type ReviewVerdict, type Severity, type StageOutcome } from "../domain/types.js";
import { effectiveVerdict } from "../findings/review-parse.js";
import type { StageDef } from "../workflow/types.js";
import { writeReviewSection } from "./artifacts.js";
import { applyResult } from "./decide.js";
import type { StageContext, StageResult } from "./deps.js";
import { recordStage } from "./record.js";
import type { RunEnv } from "./run-task.js";
import { relCycle } from "./run-task.js";
import { runSingleStage } from "./single.js";
import type { PendingChild, RunState } from "./state.js";

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
  const children = stage.children;
  const limit = Math.max(1, Math.min(stage.max ?? children.length, children.length));
  let chain: Promise<void> = Promise.resolve();
  const serial = (f: () => Promise<void>): Promise<void> => {
    chain = chain.then(f, f);
    return chain;
  };
  const queue = children.filter((c) => !state.pending[c.id]);
  const worker = async (): Promise<void> => {
    for (let child = queue.shift(); child; child = queue.shift()) {
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
      const result = await runSingleStage(c, { ...ctx, visit: (state.visits[c.id] ?? 0) + 1 });
      if (ctx.signal.aborted) return;
      await serial(async () => {
        state.pending[c.id] = toPending(result);
        state.visits[c.id] = (state.visits[c.id] ?? 0) + 1;
        state.outcomes[c.id] = result.outcome;
        state.usage = addUsage(state.usage, result.usage);
        state.costUsd += result.costUsd;
        await recordStage(
          env,
          state,
          c,
          result,
          // The child's own verdict is known now (show --json reports it); its effects apply at the merge.
          { summary: null, verdict: childVerdict(result, ctx.deps.config.defaults.blockingSeverity) },
          { started, parentId: stage.id },
        );
      });
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  if (ctx.signal.aborted) return aborted();

  // Merge in declaration order.
  const outcomes: StageOutcome[] = [];
  const summaries: string[] = [];
  for (const child of children) {
    const p = state.pending[child.id];
    if (!p) continue;
    const visitsBefore = state.visits[child.id] ?? 1;
    const applied = applyResult(child, fromPending(p), state, env.registry, env.deps);
    state.visits[child.id] = visitsBefore; // already counted when the child was recorded
    state.outcomes[child.id] = p.outcome;
    if (p.effect.type === "review") {
      await writeReviewSection(
        env.deps.reviewsDir,
        env.task.id,
        state.cycle,
        child.id,
        p.effect.output,
        applied.verdict,
      );
    }
    outcomes.push(p.outcome);
    summaries.push(`${child.id}: ${applied.summary ?? p.outcome}`);
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

/** Usage and cost were already counted when the child was recorded; the merge applies effects only. */
function fromPending(p: PendingChild): StageResult {
  return {
    outcome: p.outcome,
    effect: p.effect,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0,
    attempts: 0,
    sessionId: p.sessionId,
    agent: p.agent,
    failureReason: p.failureReason ?? undefined,
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
