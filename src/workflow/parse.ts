import { DiagnosticsError } from "../errors.js";
import type { Workflow } from "./types.js";
import { checkWorkflowText } from "./validate.js";

/**
 * Parse and validate a workflow file's text. `file` is used in diagnostics and as the
 * workflow's `source`. Throws DiagnosticsError("workflow", …) listing every problem found,
 * each as `file:line:column: message`, sorted by position.
 */
export function parseWorkflow(text: string, file: string): Workflow {
  const { workflow, diagnostics } = checkWorkflowText(text, file);
  if (workflow === undefined || diagnostics.length > 0) throw new DiagnosticsError("workflow", diagnostics);
  return workflow;
}
