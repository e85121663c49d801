import { type Task, totalTokens } from "../domain/types.js";
import type { EngineDeps } from "./deps.js";
import type { RunState } from "./state.js";

export interface BudgetState {
  /** Cost and tokens of earlier runs of the task (all runs and retries count). */
  priorUsd: number;
  priorTokens: number;
  left(state: RunState): boolean;
  spentUsd(state: RunState): number;
}

export async function budgetState(task: Task, runId: number, deps: EngineDeps): Promise<BudgetState> {
  const earlier = await deps.store.spendOutsideRun(task.id, runId);
  const priorUsd = earlier.costUsd;
  const priorTokens = earlier.tokens;
  const { usd, tokens } = task.budget;
  return {
    priorUsd,
    priorTokens,
    spentUsd: (state) => priorUsd + state.costUsd,
    left: (state) => {
      if (usd !== undefined && priorUsd + state.costUsd >= usd) return false;
      if (tokens !== undefined && priorTokens + totalTokens(state.usage) >= tokens) return false;
      return true;
    },
  };
}
