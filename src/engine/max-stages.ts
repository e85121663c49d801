import { DEFAULT_MAX_STAGES } from "../config/defaults.js";
import type { Config } from "../config/types.js";
import { transitionsFrom } from "../workflow/next.js";
import type { Workflow } from "../workflow/types.js";
import type { RunState } from "./state.js";
import { stageCount } from "./step.js";

/**
 * `max-stages` (issue 10): the most stages one run may execute. A workflow's own
 * `workflow "…" max-stages=N` wins over `defaults max-stages`; neither set = DEFAULT_MAX_STAGES.
 * `key` says where to raise it, for the message of a run that reaches it.
 */
export function maxStagesFor(config: Config, workflow: Workflow): { limit: number; key: string } {
  if (workflow.maxStages !== undefined) {
    return { limit: workflow.maxStages, key: `workflow "${workflow.name}" max-stages` };
  }
  return { limit: config.defaults.maxStages ?? DEFAULT_MAX_STAGES, key: "defaults max-stages" };
}

/**
 * The fewest stages (as `max-stages` counts them) a run starting at `from` must execute before it
 * can end: at an exit, or on entering a stage that begins a new cycle (the cycle bound may end
 * the run there). Null when no end is reachable. Dijkstra over the workflow's routes and
 * transitions, ignoring their conditions: a lower bound on every real run, in O(V + E) buckets.
 */
export function fewestStagesToEnd(workflow: Workflow, from: string): number | null {
  const dist = new Map<string, number>([[from, 0]]);
  const buckets: string[][] = [[from]];
  for (let d = 0; d < buckets.length; d++) {
    for (const id of buckets[d] ?? []) {
      if (dist.get(id) !== d) continue;
      const stage = workflow.stages.get(id);
      if (stage === undefined) continue;
      if (stage.kind === "exit" || stage.nextCycle) return d;
      const next =
        stage.kind === "decision"
          ? stage.routes.map((r) => r.to)
          : transitionsFrom(workflow, id).map((t) => t.to);
      const nd = d + stageCount(stage);
      for (const to of next) {
        const known = dist.get(to);
        if (known !== undefined && known <= nd) continue;
        dist.set(to, nd);
        while (buckets.length <= nd) buckets.push([]);
        buckets[nd]?.push(to);
      }
    }
  }
  return null;
}

/**
 * Why a run at `state` cannot end within the limit, before it runs anything (every way from its
 * next stage to an end is longer than what is left), or null when it might.
 */
export function exceedsMaxStages(
  workflow: Workflow,
  state: Pick<RunState, "next" | "stagesRun">,
  max: { limit: number; key: string },
): string | null {
  if (state.next === null) return null;
  const fewest = fewestStagesToEnd(workflow, state.next);
  if (fewest === null || state.stagesRun + fewest <= max.limit) return null;
  const done = state.stagesRun > 0 ? ` after the ${state.stagesRun} it ran` : "";
  return `workflow ${workflow.name} cannot finish within max-stages=${max.limit}: the shortest way from stage ${state.next} to an exit runs ${fewest} stage${fewest === 1 ? "" : "s"}${done}; raise \`${max.key}\` to run it`;
}
