import { describe, expect, test } from "vitest";
import { configProblems, parseConfig as parse } from "../../test/helpers/config-text.js";
import { formatDiagnostic } from "../errors.js";
import { checkWorkflowText } from "../workflow/validate.js";

const workflow = (attrs: string) => `workflow "w" ${attrs} {
    start "a"
    stage "a" kind="agent"
    stage "done" kind="exit"
    transition from="a" to="done"
}
`;

describe("max-stages (issue 10)", () => {
  test("`defaults max-stages` is read as a whole number", () => {
    expect(parse("defaults { max-stages 25000; }\n").defaults.maxStages).toBe(25_000);
    expect(parse("defaults max-stages=300\n").defaults.maxStages).toBe(300);
    expect(parse("defaults { max-cycles 2; }\n").defaults.maxStages).toBeUndefined();
  });

  test("a max-stages that is not a whole number ≥ 1 is reported at its file, line and column", () => {
    const [zero] = configProblems(
      'agent "x" backend="scripted" script="a.mjs"\ndefaults {\n    max-stages 0\n}\n',
    );
    expect(zero).toMatch(/^\/repo\/fixpoint\.kdl:3:\d+: .*max-stages/);
    const [text] = configProblems('defaults max-stages="many"\n');
    expect(text).toMatch(/^\/repo\/fixpoint\.kdl:1:\d+: .*max-stages/);
  });

  test("a workflow sets its own max-stages; a bad value is reported at its place", () => {
    const ok = checkWorkflowText(workflow("max-stages=40"), "/repo/w.kdl");
    expect(ok.diagnostics).toEqual([]);
    expect(ok.workflow?.maxStages).toBe(40);
    const bad = checkWorkflowText(workflow("max-stages=0"), "/repo/w.kdl");
    expect(bad.diagnostics.map(formatDiagnostic).join("\n")).toMatch(
      /\/repo\/w\.kdl:1:\d+: `max-stages` must be a whole number ≥ 1/,
    );
  });
});
