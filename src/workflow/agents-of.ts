import { DEFAULT_AGENT } from "./read-stage.js";
import type { Workflow } from "./types.js";

const known = new WeakMap<Workflow, readonly string[]>();

/**
 * The agents a workflow's stages name (`agent=`, or the reader's default for the stage's kind), in
 * the order they first appear. Asked at every run's start (the pricing check); a workflow read from
 * the cache comes with its list (`knowAgents`), so its stages are not all built for it.
 */
export function agentsOf(workflow: Workflow): string[] {
  const listed = known.get(workflow);
  if (listed !== undefined) return [...listed];
  const names: string[] = [];
  for (const stage of workflow.stages.values()) {
    const name = stage.agent ?? DEFAULT_AGENT[stage.kind];
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/** Tells `agentsOf` what a workflow's stages name, as found when it was checked. */
export function knowAgents(workflow: Workflow, names: readonly string[]): void {
  known.set(workflow, [...names]);
}
