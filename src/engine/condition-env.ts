import type { Severity } from "../domain/types.js";
import { noProgress } from "../findings/convergence.js";
import type { Registry } from "../findings/registry.js";
import { parseSeverity } from "../findings/severity.js";
import type { ConditionEnv, Value } from "../workflow/types.js";
import type { RunState } from "./state.js";
import { cycleVerdict } from "./verdict.js";

/** The read-only view conditions evaluate against. */
export function conditionEnv(
  state: RunState,
  registry: Registry,
  opts: { maxCycles: number; budgetLeft: () => boolean; cycleBase?: number },
): ConditionEnv {
  return {
    outcome: (stage) => state.outcomes[stage] ?? null,
    status: (stage) => state.outcomes[stage] ?? null,
    context: (key) => toValue(state.context[key]),
    cycle: () => state.cycle - (opts.cycleBase ?? state.cycleBase ?? 0),
    max_cycles: () => opts.maxCycles,
    verdict: () => cycleVerdict(state),
    // A review that could not be completed blocks approval like a finding would.
    blocking_open: () => registry.blockingOpen() + state.failedReviews.length,
    open: (severity?: string) => {
      if (severity === undefined) return registry.openCount();
      const sev: Severity | null = parseSeverity(severity);
      return sev ? registry.openCount(sev) : 0;
    },
    gates_passed: () => state.gatesPassed !== false,
    no_progress: () => noProgress(state.blockingHistory, registry.maxTimesReopened()),
    budget_left: opts.budgetLeft,
    all_blocked: () => registry.allBlocked(),
  };
}

function toValue(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  return JSON.stringify(v);
}
