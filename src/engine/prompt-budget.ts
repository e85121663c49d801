import { DEFAULT_PROMPT_BUDGET } from "../config/defaults.js";
import type { Config } from "../config/types.js";

export interface PromptBudget {
  bytes: number;
  /** The config key that sets it, named in every "too small" message. */
  key: string;
}

/** The byte budget for `agent`'s prompts: its own `prompt-budget`, else `defaults prompt-budget`. */
export function promptBudgetFor(config: Config, agent: string): PromptBudget {
  const own = config.agents[agent]?.promptBudget;
  if (own !== undefined) return { bytes: own, key: `agent "${agent}" prompt-budget` };
  return { bytes: config.defaults.promptBudget ?? DEFAULT_PROMPT_BUDGET, key: "defaults prompt-budget" };
}
