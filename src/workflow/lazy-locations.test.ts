import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseWorkflow } from "./parse.js";
import { readWorkflow } from "./read-workflow.js";

// The shared review loop: a comment on line 1, a parallel block, routes, an indented transition.
const FILE = fileURLToPath(new URL("../../test/engine/workflows/review-loop.kdl", import.meta.url));
const TEXT = readFileSync(FILE, "utf8");

describe("a valid workflow's locations", () => {
  it("are those of a read with locations, for every stage, parallel child, route and transition", () => {
    const workflow = parseWorkflow(TEXT, "lazy.kdl");
    const located = readWorkflow(TEXT, "lazy.kdl").workflow;
    if (located === undefined) throw new Error("the sample workflow must read");
    for (const [id, stage] of workflow.stages) {
      expect(stage.loc, id).toEqual(located.stages.get(id)?.loc);
      stage.routes.forEach((route, i) => {
        expect(route.loc, `${id} route ${i}`).toEqual(located.stages.get(id)?.routes[i]?.loc);
      });
    }
    workflow.transitions.forEach((t, i) => {
      expect(t.loc, `transition ${i}`).toEqual(located.transitions[i]?.loc);
    });
    expect(workflow.stages.get("review_tests")?.loc).toEqual({ file: "lazy.kdl", line: 7, column: 9 });
    expect(workflow.stages.get("decide")?.routes[1]?.loc).toEqual({ file: "lazy.kdl", line: 11, column: 9 });
    expect(workflow.transitions[2]?.loc).toEqual({ file: "lazy.kdl", line: 17, column: 7 });
  });

  it("are not worked out by the first read, which is what makes it cheap", () => {
    const quick = readWorkflow(TEXT, "lazy.kdl", { locations: false }).workflow;
    expect(quick?.stages.get("fix")?.loc).toEqual({ file: "lazy.kdl", line: 1, column: 1 });
    expect(quick?.transitions[0]?.loc).toEqual({ file: "lazy.kdl", line: 1, column: 1 });
  });

  it("an invalid workflow's messages still name the line and column", () => {
    const broken = TEXT.replace('transition from="fix" to="reviews"', 'transition from="fix" to="nowhere"');
    expect(() => parseWorkflow(broken, "lazy.kdl")).toThrow(/lazy\.kdl:17:\d+: .*nowhere/);
  });
});
