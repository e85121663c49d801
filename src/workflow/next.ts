import { FixpointError } from "../errors.js";
import { evaluateCondition } from "./condition/evaluate.js";
import type { ConditionEnv, Workflow } from "./types.js";

/**
 * The stage after `from`, decided purely from the workflow and what the conditions see:
 * - a decision stage: the target of the first route whose condition is true;
 * - any other stage: the target of the first transition out of it (declaration order) whose
 *   `when` is absent or true;
 * - null for exit stages, for parallel children (their parent carries the transitions), and
 *   when nothing matches — which the engine treats as an error.
 * An unknown `from` is a programming error and throws.
 */
export function selectNext(workflow: Workflow, from: string, env: ConditionEnv): string | null {
  const stage = workflow.stages.get(from);
  if (stage === undefined) {
    throw new FixpointError("internal", `workflow \`${workflow.name}\` has no stage \`${from}\``);
  }
  if (stage.kind === "exit" || stage.parentId !== undefined) return null;
  if (stage.kind === "decision") {
    return stage.routes.find((route) => evaluateCondition(route.when, env))?.to ?? null;
  }
  const transition = workflow.transitions.find(
    (t) => t.from === from && (t.when === undefined || evaluateCondition(t.when, env)),
  );
  return transition?.to ?? null;
}
