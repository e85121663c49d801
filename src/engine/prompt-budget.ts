import { DEFAULT_PROMPT_BUDGET } from "../config/defaults.js";
import type { Config } from "../config/types.js";
import { FixpointError } from "../errors.js";
import { MIN_DIFF_BYTES } from "./handlers/diff-bound.js";

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

/**
 * How much of a review prompt the diffs may take (issue 10). The whole diff and the changes since
 * the last review together get at most half the budget, and never more than what is left once
 * the fixed part (instructions, task, focus: `fixedBytes`) and a quarter of the budget for the
 * earlier findings are set aside. The changes since the last review come first, up to a quarter
 * of that share; the whole diff gets the rest of it. With a fixed part of up to a quarter of the
 * budget the share is exactly half the budget, so every reviewer of a cycle with the same budget
 * gets the same diff bytes. Throws FixpointError("config") naming the key when the fixed part
 * leaves no room for a diff.
 */
export function diffShare(budget: PromptBudget, fixedBytes: number): number {
  const room = budget.bytes - fixedBytes - Math.floor(budget.bytes / 4) - DIFF_SLACK;
  if (room < 2 * MIN_DIFF_BYTES) {
    throw new FixpointError(
      "config",
      `${budget.key} of ${budget.bytes} bytes is too small for a review prompt: its instructions and task take ${fixedBytes} bytes, a quarter is kept for the findings and at least ${2 * MIN_DIFF_BYTES} for the diff; raise \`${budget.key}\``,
    );
  }
  return Math.min(Math.floor(budget.bytes / 2), room);
}

/** Bytes the fences around the two diffs may add beyond what the fixed part measured. */
const DIFF_SLACK = 64;
