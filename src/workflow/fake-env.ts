import type { ConditionEnv } from "./types.js";

/**
 * A ConditionEnv for tests and dry runs: a fresh run with nothing open, every answer
 * overridable. `outcome`/`status`/`context` read from plain records.
 */
export function createFakeConditionEnv(
  overrides: Partial<ConditionEnv> & {
    outcomes?: Record<string, string>;
    contextValues?: Record<string, string | number | boolean>;
  } = {},
): ConditionEnv {
  const { outcomes = {}, contextValues = {}, ...fns } = overrides;
  return {
    outcome: (stage) => outcomes[stage] ?? null,
    status: (stage) => outcomes[stage] ?? null,
    context: (key) => contextValues[key] ?? null,
    cycle: () => 0,
    max_cycles: () => 3,
    verdict: () => null,
    blocking_open: () => 0,
    open: () => 0,
    gates_passed: () => true,
    no_progress: () => false,
    budget_left: () => true,
    all_blocked: () => false,
    ...fns,
  };
}
