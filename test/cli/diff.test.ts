/** `fixpoint diff <task>`: the task branch against its base, on a real repository after a real run. */
import { beforeEach, describe, expect, it } from "vitest";
import { type DemoProject, demoProject } from "../helpers/cli.js";

let cli: DemoProject["cli"];

beforeEach(() => {
  ({ cli } = demoProject("fixpoint-diff-"));
});

describe("fixpoint diff", () => {
  it("prints what the task's branch changes against its base", () => {
    expect(cli("add", "Add mean() and median() to src/stats.js, with tests").code).toBe(0);
    expect(cli("work").code).toBe(0);
    const r = cli("diff", "1");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("diff --git a/src/stats.js b/src/stats.js");
    expect(r.stdout).toContain("+export function mean(values) {");
    expect(r.stdout).toContain("+++ b/test/stats.test.js");
  });

  it("says so when a task has no branch yet, and exits 2 for an unknown task", () => {
    expect(cli("add", "not started").code).toBe(0);
    const waiting = cli("diff", "t-1");
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toBe("");
    expect(waiting.stderr).toContain("t-1 has no branch yet");
    const unknown = cli("diff", "t-9");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no task `t-9`");
  });
});
