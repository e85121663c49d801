import type { Diagnostic } from "../errors.js";
import { didYouMeanSuffix } from "../util/did-you-mean.js";
import type { WorkflowSource } from "./source-info.js";
import type { Condition, Expr, Workflow } from "./types.js";

/** Functions whose string argument names a stage. */
const STAGE_FUNCTIONS = new Set(["outcome", "status"]);

/**
 * `outcome("review_cod")` would quietly be null for ever; catch stage names that do not exist,
 * pointing at the argument inside the condition string.
 */
export function checkConditionReferences(workflow: Workflow, source: WorkflowSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const ids = [...workflow.stages.keys()];
  const known = (id: string) => workflow.stages.has(id) || source.brokenStages.has(id);
  const visit = (condition: Condition, expr: Expr): void => {
    switch (expr.type) {
      case "call":
        for (const arg of expr.args) {
          if (STAGE_FUNCTIONS.has(expr.name) && arg.type === "literal" && typeof arg.value === "string") {
            if (!known(arg.value)) {
              const locateOffset = source.conditions.get(condition);
              out.push({
                location: locateOffset?.(arg.pos) ?? source.workflowLoc,
                message: `\`${expr.name}("${arg.value}")\` names no stage${didYouMeanSuffix(arg.value, ids)}`,
              });
            }
          }
          visit(condition, arg);
        }
        return;
      case "unary":
        visit(condition, expr.operand);
        return;
      case "binary":
        visit(condition, expr.left);
        visit(condition, expr.right);
        return;
      default:
        return;
    }
  };
  for (const t of workflow.transitions) if (t.when) visit(t.when, t.when.expr);
  for (const stage of workflow.stages.values()) for (const r of stage.routes) visit(r.when, r.when.expr);
  return out;
}
