import type { Document, Node } from "@bgotink/kdl";
import type { Diagnostic, SourceLocation } from "../errors.js";
import { didYouMeanSuffix } from "../util/did-you-mean.js";
import { DiagnosticSink, locate } from "../util/kdl-diagnostics.js";
import { propertyMap, readInteger, readString, rejectUnknown, singleStringArg } from "../util/kdl-fields.js";
import { parseKdlSafely } from "../util/parse-kdl.js";
import { type ReadContext, readCondition } from "./read-condition.js";
import { readParallel } from "./read-parallel.js";
import { readStage } from "./read-stage.js";
import type { WorkflowSource } from "./source-info.js";
import type { StageDef, Transition, Workflow } from "./types.js";

/**
 * KDL text → Workflow, reporting every problem of form (types, unknown properties and kinds,
 * duplicate ids, condition syntax) with its location. Graph rules are checked by validate.ts.
 * `workflow` is undefined only when there is no usable `workflow` node at all.
 */
export interface ReadResult {
  workflow: Workflow | undefined;
  source: WorkflowSource;
  diagnostics: Diagnostic[];
}

const WORKFLOW_CHILDREN = ["description", "start", "stage", "parallel", "transition"];
const WORKFLOW_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * `locations: false` reads without the KDL library's element locations: faster, but every
 * diagnostic says 1:1. checkWorkflowText reads so first and again with locations when anything is
 * wrong.
 */
export function readWorkflow(text: string, file: string, opts: { locations?: boolean } = {}): ReadResult {
  const sink = new DiagnosticSink(file);
  const source: WorkflowSource = {
    file,
    workflowLoc: { file, line: 1, column: 1 },
    targets: new Map(),
    conditions: new Map(),
    brokenStages: new Set(),
    brokenConditions: new Set(),
  };
  const document = parseKdl(text, sink, opts.locations ?? true);
  const node = document === undefined ? undefined : findWorkflowNode(document, sink);
  if (node === undefined) return { workflow: undefined, source, diagnostics: sink.diagnostics };
  source.workflowLoc = locate(node, file);
  const workflow = readWorkflowNode(node, { sink, source });
  return { workflow, source, diagnostics: sink.diagnostics };
}

function parseKdl(text: string, sink: DiagnosticSink, locations: boolean): Document | undefined {
  const parsed = parseKdlSafely(text, sink.file, { locations });
  if (parsed.ok) return parsed.document;
  for (const d of parsed.diagnostics) sink.reportAt(d.location, d.message);
  return undefined;
}

function findWorkflowNode(document: Document, sink: DiagnosticSink): Node | undefined {
  let found: Node | undefined;
  for (const node of document.nodes) {
    if (node.getName() !== "workflow") {
      sink.report(
        node,
        `unexpected top-level \`${node.getName()}\`: a workflow file holds one \`workflow "name" { … }\``,
      );
    } else if (found !== undefined) {
      sink.report(node, "a workflow file holds one `workflow`; this is a second one");
    } else {
      found = node;
    }
  }
  if (found === undefined && document.nodes.length === 0) {
    sink.reportAt({ file: sink.file, line: 1, column: 1 }, 'no `workflow "name" { … }` node in this file');
  }
  return found;
}

function readWorkflowNode(node: Node, ctx: ReadContext): Workflow {
  const { sink } = ctx;
  let name = singleStringArg(node, "the workflow name", sink) ?? "";
  if (name !== "" && !WORKFLOW_NAME.test(name)) {
    sink.report(node, `workflow name \`${name}\` may use only letters, digits, _, . and -`);
    name = "";
  }
  const props = propertyMap(node, sink);
  rejectUnknown(props, ["max-stages"], "`workflow`", sink);
  const maxStages = readInteger(props.get("max-stages"), 1, sink);
  const stages = new Map<string, StageDef>();
  const firstSeen = new Map<string, SourceLocation>();
  const transitions: Transition[] = [];
  let start = "";
  let description: string | undefined;
  const addStage = (stage: StageDef) => {
    const first = firstSeen.get(stage.id);
    if (first !== undefined) {
      sink.reportAt(stage.loc, `duplicate stage id \`${stage.id}\` (first declared at line ${first.line})`);
      return;
    }
    firstSeen.set(stage.id, stage.loc);
    stages.set(stage.id, stage);
  };

  for (const child of node.children?.nodes ?? []) {
    switch (child.getName()) {
      case "description":
        description = singleStringArg(child, "the description", sink);
        break;
      case "start": {
        if (ctx.source.startLoc !== undefined) sink.report(child, "`start` is given twice");
        start = singleStringArg(child, "the first stage's id", sink) ?? start;
        const arg = child.getArgumentEntries()[0];
        ctx.source.startLoc = locate(arg ?? child, sink.file);
        break;
      }
      case "stage": {
        const stage = readStage(child, ctx);
        if (stage !== undefined) addStage(stage);
        break;
      }
      case "parallel": {
        const stage = readParallel(child, ctx);
        if (stage === undefined) break;
        addStage(stage);
        for (const c of stage.children) addStage(c);
        break;
      }
      case "transition": {
        const transition = readTransition(child, ctx);
        if (transition !== undefined) transitions.push(transition);
        break;
      }
      default:
        sink.report(
          child,
          `unknown node \`${child.getName()}\` in workflow${didYouMeanSuffix(child.getName(), WORKFLOW_CHILDREN)}`,
        );
    }
  }
  const workflow: Workflow = { name, source: sink.file, start, stages, transitions };
  if (description !== undefined) workflow.description = description;
  if (maxStages !== undefined) workflow.maxStages = maxStages;
  return workflow;
}

function readTransition(node: Node, ctx: ReadContext): Transition | undefined {
  const { sink } = ctx;
  const props = propertyMap(node, sink);
  rejectUnknown(props, ["from", "to", "when"], "`transition`", sink);
  for (const arg of node.getArgumentEntries()) {
    sink.report(arg, '`transition` takes properties only: `transition from="…" to="…"`');
  }
  const fromEntry = props.get("from");
  const toEntry = props.get("to");
  if (fromEntry === undefined || toEntry === undefined) {
    sink.report(node, '`transition` needs from="stage" and to="stage"');
  }
  const from = readString(fromEntry, sink);
  const to = readString(toEntry, sink);
  if (from === undefined || to === undefined || fromEntry === undefined || toEntry === undefined)
    return undefined;
  const whenEntry = props.get("when");
  const transition: Transition = { from, to, loc: locate(node, sink.file) };
  if (whenEntry !== undefined) transition.when = readCondition(whenEntry, ctx);
  ctx.source.targets.set(transition, { from: locate(fromEntry, sink.file), to: locate(toEntry, sink.file) });
  return transition;
}
