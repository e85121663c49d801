import { describe, expect, it } from "vitest";
import { DiagnosticsError, formatDiagnostic } from "../errors.js";
import { parseWorkflow } from "./parse.js";

const SAMPLE = `
workflow "sample" {
    description "A sample"
    start "implement"
    stage "implement" kind="agent" timeout="1h30m"
    stage "gates" kind="gate" gates="test, lint"
    parallel "reviews" {
        stage "review_code" kind="review" prompt="review-code" max-visits=4
        stage "pr" kind="github" action="reply" resolve-bots=#true
    }
    stage "ask" kind="human" prompt="approve-merge" channel="slack"
    stage "decide" kind="decision" {
        route to="done" when="gates_passed()"
        route to="fix"
    }
    stage "fix" kind="fix" next-cycle=#true timeout=90000
    stage "done" kind="exit"
    transition from="implement" to="gates"
    transition from="gates" to="reviews"
    transition from="reviews" to="ask"
    transition from="ask" to="decide"
    transition from="fix" to="gates" when="budget_left()"
    transition from="fix" to="done"
}
`;

function diagnosticsOf(text: string, file = "w.kdl"): string[] {
  try {
    parseWorkflow(text, file);
  } catch (e) {
    if (e instanceof DiagnosticsError) return e.diagnostics.map(formatDiagnostic);
    throw e;
  }
  return [];
}

describe("parseWorkflow", () => {
  const workflow = parseWorkflow(SAMPLE, "sample.kdl");

  it("reads the header and keeps stages in declaration order, children after their parent", () => {
    expect(workflow.name).toBe("sample");
    expect(workflow.description).toBe("A sample");
    expect(workflow.source).toBe("sample.kdl");
    expect(workflow.start).toBe("implement");
    expect([...workflow.stages.keys()]).toEqual([
      "implement",
      "gates",
      "reviews",
      "review_code",
      "pr",
      "ask",
      "decide",
      "fix",
      "done",
    ]);
  });

  it("applies defaults by kind", () => {
    const implement = workflow.stages.get("implement");
    expect(implement).toMatchObject({
      agent: "implementer",
      prompt: "implement",
      maxVisits: 20,
      nextCycle: false,
    });
    expect(implement?.timeoutMs).toBe(5_400_000);
    expect(implement?.loc).toEqual({ file: "sample.kdl", line: 5, column: 5 });
    expect(workflow.stages.get("review_code")).toMatchObject({
      agent: "reviewer",
      prompt: "review-code",
      maxVisits: 4,
    });
    expect(workflow.stages.get("fix")).toMatchObject({
      agent: "fixer",
      prompt: "fix",
      nextCycle: true,
      timeoutMs: 90_000,
    });
    expect(workflow.stages.get("gates")?.gates).toEqual(["test", "lint"]);
    expect(workflow.stages.get("gates")?.agent).toBeUndefined();
  });

  it("gives parallel children their parent and defaults max to the number of children", () => {
    const reviews = workflow.stages.get("reviews");
    expect(reviews?.kind).toBe("parallel");
    expect(reviews?.max).toBe(2);
    expect(reviews?.children.map((c) => [c.id, c.parentId])).toEqual([
      ["review_code", "reviews"],
      ["pr", "reviews"],
    ]);
  });

  it("passes extra properties of github and human stages through as props", () => {
    expect(workflow.stages.get("pr")).toMatchObject({ action: "reply", props: { "resolve-bots": true } });
    expect(workflow.stages.get("ask")).toMatchObject({
      prompt: "approve-merge",
      props: { channel: "slack" },
    });
  });

  it("turns a route without `when` into a catch-all and keeps transition conditions", () => {
    const routes = workflow.stages.get("decide")?.routes ?? [];
    expect(routes.map((r) => [r.to, r.when.text])).toEqual([
      ["done", "gates_passed()"],
      ["fix", "true"],
    ]);
    expect(workflow.transitions.map((t) => t.when?.text ?? null)).toEqual([
      null,
      null,
      null,
      null,
      "budget_left()",
      null,
    ]);
  });

  it("points inside raw-string conditions", () => {
    const text = `workflow "w" {
    start "a"
    stage "a" kind="agent"
    stage "b" kind="exit"
    transition from="a" to="b" when=#"verdict() == "X" && cycl() > 1"#
}`;
    // `#"` starts at column 37, so the condition's first character is at column 39.
    expect(diagnosticsOf(text)).toEqual([
      "w.kdl:5:59: invalid condition: unknown function `cycl` (did you mean `cycle`?)",
    ]);
  });

  it("reports structural mistakes in the file", () => {
    expect(diagnosticsOf("")).toEqual(['w.kdl:1:1: no `workflow "name" { … }` node in this file']);
    expect(diagnosticsOf('config "x"\nworkflow "w" {\n  strat "a"\n}')).toEqual([
      'w.kdl:1:1: unexpected top-level `config`: a workflow file holds one `workflow "name" { … }`',
      'w.kdl:2:1: workflow `w` has no `start "stage"`',
      'w.kdl:2:1: workflow `w` has no exit stage (kind="exit")',
      "w.kdl:3:3: unknown node `strat` in workflow (did you mean `start`?)",
    ]);
  });

  it("rejects misplaced children, stage kind=parallel and github stages without an action", () => {
    const text = `workflow "w" {
    start "a"
    stage "a" kind="agent" {
        route to="b"
    }
    stage "p" kind="parallel"
    stage "g" kind="github"
    stage "b" kind="exit"
    transition from="a" to="b"
    transition from="g" to="b"
}`;
    expect(diagnosticsOf(text)).toEqual([
      "w.kdl:4:9: agent stage `a` cannot have children; only decision stages hold routes",
      'w.kdl:6:15: write parallel stages as `parallel "id" { stage … }`',
      'w.kdl:7:5: github stage `g` needs action="…"',
      "w.kdl:7:5: stage `g` is unreachable from start `a`",
    ]);
  });

  it("reports a route after the catch-all as dead", () => {
    const text = `workflow "w" {
    start "d"
    stage "d" kind="decision" {
        route to="x" when="true"
        route to="x" when="cycle() > 1"
    }
    stage "x" kind="exit"
}`;
    expect(diagnosticsOf(text)).toEqual([
      "w.kdl:5:9: route can never be taken: the route before it in `d` always matches",
    ]);
  });
});
