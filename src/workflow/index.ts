/** The workflow language: parse, validate, load, and decide the next stage. Syntax: docs/workflows.md. */
export { evaluate, evaluateCondition, isTruthy } from "./condition/evaluate.js";
export { type ParseConditionResult, parseCondition } from "./condition/parser.js";
export { parseDuration } from "./duration.js";
export { createFakeConditionEnv } from "./fake-env.js";
export {
  BUILTIN_WORKFLOWS_DIR,
  type LoaderOptions,
  listWorkflows,
  loadWorkflow,
  projectWorkflowsDir,
  type WorkflowListing,
} from "./loader.js";
export { selectNext } from "./next.js";
export { parseWorkflow } from "./parse.js";
export { DEFAULT_MAX_VISITS } from "./read-stage.js";
export * from "./types.js";
export { checkWorkflowText, validateWorkflowFile } from "./validate.js";
