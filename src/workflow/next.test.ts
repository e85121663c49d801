import { describe, expect, it } from "vitest";
import { FixpointError } from "../errors.js";
import { createFakeConditionEnv } from "./fake-env.js";
import { selectNext } from "./next.js";
import { parseWorkflow } from "./parse.js";

const workflow = parseWorkflow(
  `workflow "w" {
    start "a"
    stage "a" kind="agent"
    stage "b" kind="agent"
    stage "c" kind="agent"
    stage "d" kind="decision" {
        route to="x" when="cycle() > 5"
        route to="y" when="cycle() > 2"
        route to="x"
    }
    stage "x" kind="exit"
    stage "y" kind="exit"
    transition from="a" to="b" when=#"outcome("a") == "success""#
    transition from="a" to="c" when=#"outcome("a") == "fail""#
    transition from="b" to="d"
    transition from="c" to="d" when="false"
}`,
  "w.kdl",
);

describe("selectNext", () => {
  it("takes the first transition whose condition holds, in declaration order", () => {
    expect(selectNext(workflow, "a", createFakeConditionEnv({ outcomes: { a: "success" } }))).toBe("b");
    expect(selectNext(workflow, "a", createFakeConditionEnv({ outcomes: { a: "fail" } }))).toBe("c");
    expect(selectNext(workflow, "b", createFakeConditionEnv())).toBe("d");
  });

  it("returns null when no transition matches, for the engine to report", () => {
    expect(selectNext(workflow, "a", createFakeConditionEnv({ outcomes: { a: "retry" } }))).toBeNull();
    expect(selectNext(workflow, "c", createFakeConditionEnv())).toBeNull();
  });

  it("takes the first true route of a decision", () => {
    expect(selectNext(workflow, "d", createFakeConditionEnv({ cycle: () => 9 }))).toBe("x");
    expect(selectNext(workflow, "d", createFakeConditionEnv({ cycle: () => 3 }))).toBe("y");
    expect(selectNext(workflow, "d", createFakeConditionEnv({ cycle: () => 0 }))).toBe("x");
  });

  it("ends at exits and refuses unknown stages", () => {
    expect(selectNext(workflow, "x", createFakeConditionEnv())).toBeNull();
    expect(() => selectNext(workflow, "nope", createFakeConditionEnv())).toThrow(FixpointError);
  });
});
