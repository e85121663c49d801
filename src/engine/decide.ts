import { addUsage, type Task } from "../domain/types.js";
import type { Registry } from "../findings/registry.js";
import { selectNext } from "../workflow/next.js";
import type { StageDef, Workflow } from "../workflow/types.js";
import type { BudgetState } from "./budget.js";
import { conditionEnv } from "./condition-env.js";
import type { EngineDeps, StageResult } from "./deps.js";
import { type AppliedEffect, applyEffect } from "./effects.js";
import type { RunEnd } from "./run-env.js";
import type { RunState } from "./state.js";

/** Stage kinds whose failure (timeout, crash, API error) stops the run: the loop cannot go on without them. */
const FATAL_ON_FAILURE = new Set(["agent", "fix"]);
const FATAL_CLASSES = new Set(["timeout", "cancelled", "agent_error", "exit_nonzero", "internal", "config"]);

/** Folds a finished stage into the run state and the registry (the "do" after the handler). */
export function applyResult(
  stage: StageDef,
  result: StageResult,
  state: RunState,
  registry: Registry,
  deps: EngineDeps,
): AppliedEffect {
  const applied = applyEffect(result.effect, registry, state, {
    blockingSeverity: deps.config.defaults.blockingSeverity,
  });
  state.visits[stage.id] = (state.visits[stage.id] ?? 0) + 1;
  state.outcomes[stage.id] = result.outcome;
  state.usage = addUsage(state.usage, result.usage);
  state.costUsd += result.costUsd;
  if (result.agent && result.sessionId) state.sessions[result.agent] = result.sessionId;
  if (result.context) Object.assign(state.context, result.context);
  if (stage.kind === "fix" && state.followup) state.followup = null;
  // Decisions and exits do no work of their own: the failure before them is what an exit quotes.
  if (stage.kind !== "decision" && stage.kind !== "exit") {
    state.lastFailure =
      result.outcome === "fail" && result.failureReason ? `${stage.id}: ${result.failureReason}` : null;
  }
  if (stage.kind === "decision") {
    const idx = state.cycle - state.cycleBase;
    while (state.blockingHistory.length < idx) state.blockingHistory.push(state.blockingHistory.at(-1) ?? 0);
    state.blockingHistory[idx] = registry.blockingOpen();
  }
  return applied;
}

/**
 * The pure choice of what comes next: the workflow's transitions under the current state, or the
 * end of the run. Same inputs, same answer — resume and replay depend on it.
 */
export function decideNext(
  workflow: Workflow,
  stage: StageDef,
  result: StageResult,
  state: RunState,
  registry: Registry,
  task: Task,
  deps: EngineDeps,
  budget: BudgetState,
): { stage: string | null; end?: RunEnd } {
  if (stage.kind === "exit") {
    return {
      stage: null,
      end: { kind: "exit", stageId: stage.id, forced: stage.verdict, reason: exitReason(stage, state) },
    };
  }
  if (
    result.outcome === "fail" &&
    FATAL_ON_FAILURE.has(stage.kind) &&
    FATAL_CLASSES.has(result.failureClass ?? "") &&
    stage.props["on-fail"] !== "continue"
  ) {
    return {
      stage: null,
      end: {
        kind: "stopped",
        reason: `${stage.id} failed: ${result.failureReason ?? "unknown error"}`,
        stageId: stage.id,
      },
    };
  }
  const env = conditionEnv(state, registry, {
    maxCycles: task.maxCycles,
    budgetLeft: () => budget.left(state),
    cycleBase: state.cycleBase,
  });
  const next = selectNext(workflow, stage.id, env);
  if (next === null) {
    return {
      stage: null,
      end: { kind: "stopped", reason: `no transition from stage ${stage.id} matched`, stageId: stage.id },
    };
  }
  void deps;
  return { stage: next };
}

/** A forced exit says why: its own `reason`, else the failure of the stage that led to it. */
export function exitReason(
  stage: Pick<StageDef, "verdict" | "reason">,
  state: Pick<RunState, "lastFailure">,
): string | undefined {
  if (!stage.verdict) return undefined;
  const parts = [stage.reason, state.lastFailure].filter((p): p is string => Boolean(p));
  return parts.length ? parts.join(": ") : undefined;
}
