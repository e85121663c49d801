import { describe, expect, it } from "vitest";
import { parseConfigText } from "../config/parse.js";
import { DiagnosticsError, formatDiagnostic } from "../errors.js";
import { parseWorkflow } from "../workflow/parse.js";

/** Every diagnostic of a file that fails to read, as `line:column: message`. */
function problems(read: () => unknown): string[] {
  try {
    read();
  } catch (e) {
    if (e instanceof DiagnosticsError)
      return e.diagnostics.map((d) => formatDiagnostic(d).replace(/^[^:]*:/, ""));
    throw e;
  }
  return [];
}

const workflow = (stageProps: string) => `workflow "w" {
    start "a"
    stage "a" kind="agent" ${stageProps}
    stage "done" kind="exit"
    transition from="a" to="done"
}
`;

/** One field reader for fixpoint.kdl and workflow files: the same mistake reads the same in both. */
describe("KDL field reading, shared by config and workflows", () => {
  it("a wrong whole number, boolean or string is named with what was written, in either file", () => {
    const config = problems(() =>
      parseConfigText('defaults max-cycles=0 followups="yes"\ngate "g" run=5\n', "fixpoint.kdl", {
        home: "/h",
      }),
    );
    expect(config).toEqual([
      "1:21: `max-cycles` must be a whole number ≥ 1, got 0",
      '1:33: `followups` must be #true or #false, got "yes"',
      "2:14: `run` must be a string, got 5",
    ]);
    const wf = problems(() => parseWorkflow(workflow("max-visits=0 prompt=5"), "w.kdl"));
    expect(wf).toEqual([
      "3:28: `max-visits` must be a whole number ≥ 1, got 0",
      "3:41: `prompt` must be a string, got 5",
    ]);
  });

  it("a property given twice is reported on the same terms in both files", () => {
    const config = problems(() =>
      parseConfigText('gate "g" run="a" run="b"\n', "fixpoint.kdl", { home: "/h" }),
    );
    expect(config).toEqual(['1:18: `run` is set twice on `gate "g"`']);
    const wf = problems(() => parseWorkflow(workflow("max-visits=2 max-visits=3"), "w.kdl"));
    expect(wf).toEqual(['3:41: `max-visits` is set twice on `stage "a"`']);
  });
});
