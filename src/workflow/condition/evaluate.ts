import type { Condition, ConditionEnv, Expr, Value } from "../types.js";

/**
 * Evaluation semantics (docs/workflows.md, "Conditions"):
 * - `==`/`!=` compare by value and type: `1 == "1"` is false, strings are case-sensitive,
 *   `null == null` is true.
 * - `< <= > >=` compare numbers; with any non-number operand the comparison is false.
 * - `&&`, `||` and `!` use truthiness (false, null, 0, NaN and "" are falsy) and always yield a
 *   boolean; `&&`/`||` short-circuit, so the right side's functions are not called needlessly.
 * - unary `-` negates a number; anything else yields null.
 * - A function that throws, or returns undefined, yields null: a condition asks a question of
 *   the run state and must never bring the engine down. `ident` nodes (rejected by the parser)
 *   also yield null.
 * For a condition accepted by parseCondition, evaluate never throws.
 */
export function evaluate(expr: Expr, env: ConditionEnv): Value {
  switch (expr.type) {
    case "literal":
      return expr.value;
    case "ident":
      return null;
    case "call":
      return callFunction(expr.name, expr.args, env);
    case "unary": {
      const operand = evaluate(expr.operand, env);
      if (expr.op === "!") return !isTruthy(operand);
      return typeof operand === "number" ? -operand : null;
    }
    case "binary":
      return evaluateBinary(expr, env);
  }
}

/** The condition's answer as a boolean (its value's truthiness). */
export function evaluateCondition(condition: Condition, env: ConditionEnv): boolean {
  return isTruthy(evaluate(condition.expr, env));
}

export function isTruthy(value: Value): boolean {
  if (value === null || value === false || value === "") return false;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  return true;
}

function evaluateBinary(expr: Expr & { type: "binary" }, env: ConditionEnv): Value {
  if (expr.op === "&&") return isTruthy(evaluate(expr.left, env)) && isTruthy(evaluate(expr.right, env));
  if (expr.op === "||") return isTruthy(evaluate(expr.left, env)) || isTruthy(evaluate(expr.right, env));
  const left = evaluate(expr.left, env);
  const right = evaluate(expr.right, env);
  switch (expr.op) {
    case "==":
      return left === right;
    case "!=":
      return left !== right;
    default:
      if (typeof left !== "number" || typeof right !== "number") return false;
      if (expr.op === "<") return left < right;
      if (expr.op === "<=") return left <= right;
      if (expr.op === ">") return left > right;
      return left >= right;
  }
}

function callFunction(name: string, args: readonly Expr[], env: ConditionEnv): Value {
  const values = args.map((arg) => evaluate(arg, env));
  try {
    return normalise(dispatch(name, values, env));
  } catch {
    // Documented above: a failing question is answered with null, never with a crash.
    return null;
  }
}

/** Arguments are names; non-strings are converted with String(), and null means "no answer". */
function nameArg(values: readonly Value[]): string | null {
  const v = values[0];
  if (v === undefined || v === null) return null;
  return typeof v === "string" ? v : String(v);
}

function dispatch(name: string, values: readonly Value[], env: ConditionEnv): Value | undefined {
  switch (name) {
    case "outcome":
    case "status":
    case "context": {
      const arg = nameArg(values);
      return arg === null ? null : env[name](arg);
    }
    case "open": {
      if (values.length === 0) return env.open();
      const arg = nameArg(values);
      return arg === null ? null : env.open(arg);
    }
    case "cycle":
    case "max_cycles":
    case "verdict":
    case "blocking_open":
    case "gates_passed":
    case "no_progress":
    case "budget_left":
    case "all_blocked":
      return env[name]();
    default:
      return null;
  }
}

function normalise(value: unknown): Value {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return null;
}
