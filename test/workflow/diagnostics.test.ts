import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DiagnosticsError, formatDiagnostic } from "../../src/errors.js";
import { parseWorkflow } from "../../src/workflow/parse.js";
import { validateWorkflowFile } from "../../src/workflow/validate.js";

const FIXTURES = join(import.meta.dirname, "fixtures");

/** One bad file per rule; each line is exactly what `fixpoint workflows validate` prints. */
const GOLDEN: Record<string, string[]> = {
  "malformed-kdl.kdl": ["malformed-kdl.kdl:5:36: invalid KDL: Expected a value"],
  "unknown-kind.kdl": ["unknown-kind.kdl:3:23: unknown stage kind `agnet` (did you mean `agent`?)"],
  "unknown-property.kdl": [
    "unknown-property.kdl:3:34: unknown property `promt` on review stage `review` (did you mean `prompt`?)",
  ],
  "unreachable-stage.kdl": [
    "unreachable-stage.kdl:4:5: stage `orphan` is unreachable from start `implement`",
  ],
  "missing-exit.kdl": ['missing-exit.kdl:1:1: workflow `missing-exit` has no exit stage (kind="exit")'],
  // The column points inside the `when` string: here, just past the dangling `&&`.
  "condition-syntax.kdl": [
    "condition-syntax.kdl:5:64: invalid condition: expected a value, found end of condition",
  ],
  "unknown-function.kdl": [
    "unknown-function.kdl:5:31: invalid condition: unknown function `blocking_opn` (did you mean `blocking_open`?)",
  ],
  "bare-identifier.kdl": [
    "bare-identifier.kdl:4:78: invalid condition: `max_cycles` is a function: write `max_cycles()`",
  ],
  // `\"` escapes take two columns in the file and one character in the condition.
  "escaped-condition.kdl": [
    'escaped-condition.kdl:5:102: `outcome("review_cod")` names no stage (did you mean `review_code`?)',
  ],
  "duplicate-id.kdl": ["duplicate-id.kdl:6:9: duplicate stage id `review` (first declared at line 5)"],
  "unknown-target.kdl": [
    "unknown-target.kdl:7:29: transition to unknown stage `dnoe` (did you mean `done`?)",
  ],
  "decision-without-catch-all.kdl": [
    'decision-without-catch-all.kdl:3:5: decision `decide` has no catch-all route; end it with `route to="…"` (no `when`) or `when="true"`',
  ],
  "decision-with-transition.kdl": [
    "decision-with-transition.kdl:7:5: decision stage `decide` cannot have transitions; put a `route` inside it",
  ],
  "no-outgoing.kdl": ["no-outgoing.kdl:4:5: gate stage `gates` has no outgoing transition"],
  "bad-parallel.kdl": [
    "bad-parallel.kdl:3:24: `max` must be a whole number ≥ 1, got 0",
    "bad-parallel.kdl:4:9: parallel `reviews` cannot contain another parallel",
  ],
  "parallel-child-target.kdl": [
    "parallel-child-target.kdl:9:16: transition from `review_code`: it runs inside parallel `reviews`; use `reviews` here",
  ],
  "start-problems.kdl": [
    "start-problems.kdl:2:11: start at unknown stage `implment` (did you mean `implement`?)",
    'start-problems.kdl:3:36: `timeout` must be a duration like "30s", "10m", "1h30m" or a number of ms',
    "start-problems.kdl:3:58: `max-visits` must be a whole number ≥ 1, got 0",
    "start-problems.kdl:4:30: unknown verdict `APPROVD` (did you mean `APPROVED`?)",
  ],
};

function thrown(fn: () => unknown): DiagnosticsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DiagnosticsError) return e;
    throw e;
  }
  throw new Error("expected a DiagnosticsError");
}

describe("workflow diagnostics (golden)", () => {
  for (const [name, expected] of Object.entries(GOLDEN)) {
    it(`${name} reports ${expected.length === 1 ? "its problem" : "every problem"} at file:line:column`, async () => {
      const text = await readFile(join(FIXTURES, name), "utf8");
      const error = thrown(() => parseWorkflow(text, name));
      expect(error.code).toBe("workflow");
      expect(error.exitCode).toBe(2);
      expect(error.diagnostics.map(formatDiagnostic)).toEqual(expected);
      expect(error.message).toBe(expected.join("\n"));
    });
  }

  it("validateWorkflowFile reports with the path it was given", async () => {
    const path = join(FIXTURES, "unknown-kind.kdl");
    const diagnostics = await validateWorkflowFile(path);
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      `${path}:3:23: unknown stage kind \`agnet\` (did you mean \`agent\`?)`,
    ]);
  });

  it("validateWorkflowFile turns an unreadable file into one diagnostic", async () => {
    const path = join(FIXTURES, "does-not-exist.kdl");
    const [first, ...rest] = await validateWorkflowFile(path);
    expect(rest).toEqual([]);
    expect(first?.location).toEqual({ file: path, line: 1, column: 1 });
    expect(first?.message).toMatch(/^cannot read file: .*ENOENT/);
  });
});
