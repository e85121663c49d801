import { describe, expect, it } from "vitest";
import type { Expr } from "../types.js";
import { parseCondition } from "./parser.js";

/** A compact, fully parenthesised rendering of the tree, so precedence is visible in one line. */
function show(expr: Expr): string {
  switch (expr.type) {
    case "literal":
      return JSON.stringify(expr.value);
    case "ident":
      return expr.name;
    case "call":
      return `${expr.name}(${expr.args.map(show).join(", ")})`;
    case "unary":
      return `(${expr.op}${show(expr.operand)})`;
    case "binary":
      return `(${show(expr.left)} ${expr.op} ${show(expr.right)})`;
  }
}

function tree(text: string): string {
  const result = parseCondition(text);
  if (!result.ok) throw new Error(`${result.message} at ${result.offset}`);
  return show(result.condition.expr);
}

function failure(text: string): { message: string; offset: number } {
  const result = parseCondition(text);
  if (result.ok) throw new Error(`expected a parse error for ${text}`);
  return { message: result.message, offset: result.offset };
}

describe("parseCondition precedence", () => {
  it("binds && tighter than ||", () => {
    expect(tree("true || false && false")).toBe("(true || (false && false))");
  });

  it("binds equality tighter than && and comparison tighter than equality", () => {
    expect(tree("cycle() < 3 == true && gates_passed()")).toBe("(((cycle() < 3) == true) && gates_passed())");
  });

  it("applies unary operators before comparison", () => {
    expect(tree("-1 < cycle()")).toBe("((-1) < cycle())");
    expect(tree("!gates_passed() || no_progress()")).toBe("((!gates_passed()) || no_progress())");
  });

  it("lets parentheses override precedence and is left-associative for ||", () => {
    expect(tree("(true || false) && false")).toBe("((true || false) && false)");
    expect(tree("true || false || true")).toBe("((true || false) || true)");
  });

  it("reads strings with escapes, decimals and function arguments", () => {
    expect(tree('outcome("review_code") == "say \\"hi\\""')).toBe(
      '(outcome("review_code") == "say \\"hi\\"")',
    );
    expect(tree("open() > 1.5")).toBe("(open() > 1.5)");
    expect(tree('open("P2") >= 0')).toBe('(open("P2") >= 0)');
  });

  it("keeps the source text and operator offsets", () => {
    const result = parseCondition("cycle() >= 2");
    expect(result.ok && result.condition.text).toBe("cycle() >= 2");
    expect(result.ok && result.condition.expr.pos).toBe(8);
  });
});

describe("parseCondition errors carry the offset of the problem", () => {
  it("suggests the closest function name", () => {
    expect(failure("blocking_opn() == 0")).toEqual({
      message: "unknown function `blocking_opn` (did you mean `blocking_open`?)",
      offset: 0,
    });
  });

  it("explains a function used without parentheses", () => {
    expect(failure("cycle() >= max_cycles")).toEqual({
      message: "`max_cycles` is a function: write `max_cycles()`",
      offset: 11,
    });
  });

  it("rejects bare words that are not functions", () => {
    expect(failure("verdict() == APPROVED").message).toMatch(
      /^unknown name `APPROVED`: strings need double quotes/,
    );
    expect(failure("verdict() == APPROVED").offset).toBe(13);
  });

  it("checks argument counts and argument types", () => {
    expect(failure("cycle(1) > 0")).toEqual({ message: "`cycle()` takes no arguments, got 1", offset: 0 });
    expect(failure("outcome() == 1")).toEqual({ message: "`outcome()` takes 1 argument, got 0", offset: 0 });
    expect(failure('open("P1", "P2") > 0')).toEqual({
      message: "`open()` takes at most 1 argument, got 2",
      offset: 0,
    });
    expect(failure("status(3) == 1")).toEqual({
      message: "`status()` takes a string in double quotes",
      offset: 7,
    });
  });

  it("points at single = and & with the operator to use", () => {
    expect(failure("cycle() = 1")).toEqual({ message: "unexpected `=` (use `==`)", offset: 8 });
    expect(failure("true & false")).toEqual({ message: "unexpected `&` (use `&&`)", offset: 5 });
  });

  it("reports unterminated strings at the opening quote", () => {
    expect(failure('verdict() == "APPROVED')).toEqual({ message: "unterminated string", offset: 13 });
  });

  it("reports missing operands, closing parentheses and trailing tokens", () => {
    expect(failure("cycle() >=")).toEqual({
      message: "expected a value, found end of condition",
      offset: 10,
    });
    expect(failure("(true || false")).toEqual({
      message: "expected `)` to close the `(` at offset 0, found end of condition",
      offset: 14,
    });
    expect(failure("true false")).toEqual({
      message: "unexpected `false` after a complete expression",
      offset: 5,
    });
    expect(failure("   ")).toEqual({ message: "empty condition", offset: 0 });
  });

  it("refuses chained comparisons", () => {
    expect(failure("1 < cycle() < 3")).toEqual({
      message: "`<` cannot be chained; combine comparisons with `&&`",
      offset: 12,
    });
  });
});
