import type { SourceLocation } from "../errors.js";
import type { Workflow } from "./types.js";

/**
 * Gives a workflow read without the KDL library's element locations (checkWorkflowText's first
 * read, where every `loc` says 1:1) the locations a read with them finds, worked out when a `loc`
 * is first asked for: `located` reads the same text again with locations, once for the whole
 * workflow. A valid workflow's locations are for messages and tools (the library's `StageDef.loc`);
 * the engine never asks, so running a workflow never pays for them.
 *
 * Stages are matched by id, a stage's routes and the workflow's transitions by position: the two
 * reads are of the same text and differ only in the locations.
 */
export function withLazyLocations(workflow: Workflow, located: () => Workflow | undefined): Workflow {
  let full: Workflow | undefined;
  let read = false;
  const other = (): Workflow | undefined => {
    if (!read) {
      full = located();
      read = true;
    }
    return full;
  };
  for (const stage of workflow.stages.values()) {
    lazyLoc(stage, () => other()?.stages.get(stage.id)?.loc);
    stage.routes.forEach((route, i) => {
      lazyLoc(route, () => other()?.stages.get(stage.id)?.routes[i]?.loc);
    });
  }
  workflow.transitions.forEach((transition, i) => {
    lazyLoc(transition, () => other()?.transitions[i]?.loc);
  });
  return workflow;
}

/** Replaces `target.loc` with a getter that asks `find` once, keeping the old value if it finds none. */
function lazyLoc(target: { loc: SourceLocation }, find: () => SourceLocation | undefined): void {
  const fallback = target.loc;
  let known: SourceLocation | undefined;
  Object.defineProperty(target, "loc", {
    enumerable: true,
    configurable: true,
    get(): SourceLocation {
      known ??= find() ?? fallback;
      return known;
    },
  });
}
