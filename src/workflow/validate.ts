import { readFile } from "node:fs/promises";
import { type Diagnostic, errorMessage, type SourceLocation } from "../errors.js";
import { didYouMeanSuffix } from "../util/did-you-mean.js";
import { withLazyLocations } from "./lazy-locations.js";
import { transitionsFrom } from "./next.js";
import { type ReadResult, readWorkflow } from "./read-workflow.js";
import { checkConditionReferences } from "./references.js";
import type { WorkflowSource } from "./source-info.js";
import type { Route, StageDef, Transition, Workflow } from "./types.js";

/**
 * Graph rules (docs/workflows.md, "Validation"): a start that exists, targets that exist, no
 * transitions out of decisions or exits, a catch-all route in every decision, an outgoing
 * transition from every working stage, an exit, and every stage reachable from the start.
 */
export function checkGraph(workflow: Workflow, source: WorkflowSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const report = (location: SourceLocation, message: string) => out.push({ location, message });
  const known = (id: string) => workflow.stages.has(id) || source.brokenStages.has(id);
  const ids = [...workflow.stages.keys()];

  const checkTarget = (id: string, location: SourceLocation, role: string): boolean => {
    if (!known(id)) {
      report(location, `${role} unknown stage \`${id}\`${didYouMeanSuffix(id, ids)}`);
      return false;
    }
    const parent = workflow.stages.get(id)?.parentId;
    if (parent !== undefined) {
      report(location, `${role} \`${id}\`: it runs inside parallel \`${parent}\`; use \`${parent}\` here`);
      return false;
    }
    return true;
  };

  const startOk = checkStart(workflow, source, report, checkTarget);
  for (const t of workflow.transitions) checkTransition(t, workflow, source, report, checkTarget);
  for (const stage of workflow.stages.values()) {
    if (stage.kind === "decision") checkDecision(stage, source, report, checkTarget);
    else if (stage.kind !== "exit" && stage.parentId === undefined) {
      if (transitionsFrom(workflow, stage.id).length === 0) {
        report(stage.loc, `${stage.kind} stage \`${stage.id}\` has no outgoing transition`);
      }
    }
  }
  const hasExit = [...workflow.stages.values()].some((s) => s.kind === "exit");
  // A broken stage may be the intended exit (`kind="exti"`): say one thing, not two.
  if (!hasExit && source.brokenStages.size === 0) {
    report(source.workflowLoc, `workflow \`${workflow.name}\` has no exit stage (kind="exit")`);
  }
  if (startOk) {
    const reachable = reachableFrom(workflow.start, workflow);
    for (const stage of workflow.stages.values()) {
      if (!reachable.has(stage.id)) {
        report(stage.loc, `stage \`${stage.id}\` is unreachable from start \`${workflow.start}\``);
      }
    }
  }
  out.push(...checkConditionReferences(workflow, source));
  return out;
}

type Report = (location: SourceLocation, message: string) => void;
type CheckTarget = (id: string, location: SourceLocation, role: string) => boolean;

function checkStart(workflow: Workflow, source: WorkflowSource, report: Report, checkTarget: CheckTarget) {
  if (source.startLoc === undefined) {
    report(source.workflowLoc, `workflow \`${workflow.name}\` has no \`start "stage"\``);
    return false;
  }
  return workflow.start !== "" && checkTarget(workflow.start, source.startLoc, "start at");
}

function checkTransition(
  t: Transition,
  workflow: Workflow,
  source: WorkflowSource,
  report: Report,
  checkTarget: CheckTarget,
): void {
  const at = source.targets.get(t);
  const fromOk = checkTarget(t.from, at?.from ?? t.loc, "transition from");
  checkTarget(t.to, at?.to ?? t.loc, "transition to");
  const from = workflow.stages.get(t.from);
  if (!fromOk || from === undefined) return;
  if (from.kind === "decision") {
    report(t.loc, `decision stage \`${from.id}\` cannot have transitions; put a \`route\` inside it`);
  } else if (from.kind === "exit") {
    report(t.loc, `exit stage \`${from.id}\` ends the run; it cannot have transitions`);
  }
}

function isCatchAll(route: Route): boolean {
  return route.when.expr.type === "literal" && route.when.expr.value === true;
}

function checkDecision(stage: StageDef, source: WorkflowSource, report: Report, checkTarget: CheckTarget) {
  for (const route of stage.routes) {
    checkTarget(route.to, source.targets.get(route)?.to ?? route.loc, "route to");
  }
  const catchAllIndex = stage.routes.findIndex(isCatchAll);
  const after = stage.routes[catchAllIndex + 1];
  if (catchAllIndex >= 0 && after !== undefined) {
    report(after.loc, `route can never be taken: the route before it in \`${stage.id}\` always matches`);
  }
  if (catchAllIndex < 0 && !stage.routes.some((r) => source.brokenConditions.has(r.when))) {
    report(
      stage.loc,
      `decision \`${stage.id}\` has no catch-all route; end it with \`route to="…"\` (no \`when\`) or \`when="true"\``,
    );
  }
}

/** Stages reachable from `start` along transitions and routes; a parallel's children with it. */
function reachableFrom(start: string, workflow: Workflow): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i] as string;
    if (seen.has(id)) continue;
    seen.add(id);
    const stage = workflow.stages.get(id);
    for (const child of stage?.children ?? []) queue.push(child.id);
    for (const route of stage?.routes ?? []) queue.push(route.to);
    for (const t of transitionsFrom(workflow, id)) queue.push(t.to);
  }
  return seen;
}

/** Sorted by position, so messages read top to bottom like the file. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) => a.location.line - b.location.line || a.location.column - b.location.column,
  );
}

/**
 * Read and check a workflow's text; the Workflow is present only when there are no diagnostics.
 *
 * A workflow is read first without the KDL library's element locations: keeping one for every
 * element made reading a 10,000-stage workflow 2-3x slower, and superlinear once the document
 * outgrew V8's young generation (docs/benchmarks.md). When anything is wrong, the text is read
 * again with locations, so every message names its file:line:column; a valid workflow's `loc`s are
 * read so only when first asked for (lazy-locations.ts). The reads differ only in the locations.
 */
export function checkWorkflowText(
  text: string,
  file: string,
): { workflow?: Workflow; diagnostics: Diagnostic[] } {
  const quick = checkRead(readWorkflow(text, file, { locations: false }));
  if (quick.workflow === undefined) return checkRead(readWorkflow(text, file));
  // The text is already known to be valid: the located read only has to be read, not checked.
  return {
    workflow: withLazyLocations(quick.workflow, () => readWorkflow(text, file).workflow),
    diagnostics: quick.diagnostics,
  };
}

function checkRead(read: ReadResult): { workflow?: Workflow; diagnostics: Diagnostic[] } {
  if (read.workflow === undefined) return { diagnostics: sortDiagnostics(read.diagnostics) };
  const diagnostics = sortDiagnostics([...read.diagnostics, ...checkGraph(read.workflow, read.source)]);
  return diagnostics.length === 0 ? { workflow: read.workflow, diagnostics } : { diagnostics };
}

/** Every problem in a workflow file, [] when it is valid; an unreadable file is one diagnostic. */
export async function validateWorkflowFile(path: string): Promise<Diagnostic[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    return [
      { location: { file: path, line: 1, column: 1 }, message: `cannot read file: ${errorMessage(e)}` },
    ];
  }
  return checkWorkflowText(text, path).diagnostics;
}
