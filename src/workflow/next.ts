import { FixpointError } from "../errors.js";
import { evaluateCondition } from "./condition/evaluate.js";
import type { ConditionEnv, Transition, Workflow } from "./types.js";

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
  const transition = transitionsFrom(workflow, from).find(
    (t) => t.when === undefined || evaluateCondition(t.when, env),
  );
  return transition?.to ?? null;
}

/**
 * Each workflow's transitions by `from`, in declaration order, built once: a scan of every
 * transition per stage made a 3,000-stage chain quadratic (issue 10), and validating a
 * 30,000-stage workflow too. Workflows are immutable once read.
 */
const byFrom = new WeakMap<Workflow, Map<string, Transition[]>>();

export function transitionsFrom(workflow: Workflow, from: string): readonly Transition[] {
  let index = byFrom.get(workflow);
  if (index === undefined) {
    index = new Map();
    for (const t of workflow.transitions) {
      const list = index.get(t.from);
      if (list) list.push(t);
      else index.set(t.from, [t]);
    }
    byFrom.set(workflow, index);
  }
  return index.get(from) ?? [];
}
