import { describe, expect, it } from "vitest";
import { createFakeConditionEnv } from "../fake-env.js";
import type { Condition, ConditionEnv, Value } from "../types.js";
import { evaluate, evaluateCondition } from "./evaluate.js";
import { parseCondition } from "./parser.js";

function condition(text: string): Condition {
  const parsed = parseCondition(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.condition;
}

function run(text: string, env: ConditionEnv = createFakeConditionEnv()): Value {
  return evaluate(condition(text).expr, env);
}

describe("evaluate", () => {
  it("compares by value and type, case-sensitively", () => {
    const env = createFakeConditionEnv({ outcomes: { review_code: "success" } });
    expect(run('outcome("review_code") == "success"', env)).toBe(true);
    expect(run('outcome("review_code") == "SUCCESS"', env)).toBe(false);
    expect(run('outcome("review_tests") != "success"', env)).toBe(true);
    expect(run('context("n") == "1"', createFakeConditionEnv({ contextValues: { n: 1 } }))).toBe(false);
  });

  it("compares numbers and answers false for comparisons of anything else", () => {
    const env = createFakeConditionEnv({ cycle: () => 2, max_cycles: () => 3 });
    expect(run("cycle() >= max_cycles()", env)).toBe(false);
    expect(run("cycle() < max_cycles()", env)).toBe(true);
    expect(run('"b" > "a"', env)).toBe(false);
    expect(run("verdict() < 1", env)).toBe(false);
    expect(run("-cycle() == -2", env)).toBe(true);
  });

  it("uses truthiness for ! && || and returns booleans", () => {
    expect(run("!verdict()")).toBe(true);
    expect(run("!open()")).toBe(true);
    expect(run("open() || 0")).toBe(false);
    expect(run('"x" && 2')).toBe(true);
  });

  it("short-circuits so the right side is not asked", () => {
    let asked = 0;
    const env = createFakeConditionEnv({
      no_progress: () => {
        asked++;
        return true;
      },
    });
    expect(run("false && no_progress()", env)).toBe(false);
    expect(run("true || no_progress()", env)).toBe(true);
    expect(asked).toBe(0);
  });

  it("passes string arguments through and calls open() with or without a severity", () => {
    const seen: (string | undefined)[] = [];
    const env = createFakeConditionEnv({
      open: (severity?: string) => {
        seen.push(severity);
        return severity === "P2" ? 4 : 7;
      },
    });
    expect(run('open("P2") == 4', env)).toBe(true);
    expect(run("open() == 7", env)).toBe(true);
    expect(seen).toEqual(["P2", undefined]);
  });

  it("treats a function that throws as null instead of failing the run", () => {
    const env = createFakeConditionEnv({
      verdict: () => {
        throw new Error("store closed");
      },
    });
    expect(run("verdict()", env)).toBeNull();
    expect(run('verdict() == "APPROVED"', env)).toBe(false);
    expect(evaluateCondition(condition("!verdict()"), env)).toBe(true);
  });
});
