import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFakeConditionEnv } from "../../src/workflow/fake-env.js";
import { BUILTIN_WORKFLOWS_DIR, listWorkflows, loadWorkflow } from "../../src/workflow/loader.js";
import { selectNext } from "../../src/workflow/next.js";
import { parseWorkflow } from "../../src/workflow/parse.js";
import type { ConditionEnv, Workflow } from "../../src/workflow/types.js";
import { validateWorkflowFile } from "../../src/workflow/validate.js";

const BENCH_WORKFLOW = join(import.meta.dirname, "../../bench/workflows/short-circuit.kdl");

async function builtinFiles(): Promise<string[]> {
  return (await readdir(BUILTIN_WORKFLOWS_DIR))
    .filter((f) => f.endsWith(".kdl"))
    .map((f) => join(BUILTIN_WORKFLOWS_DIR, f));
}

/** Follow selectNext from the start, asking `envAt` for the env before each step. */
function walk(workflow: Workflow, steps: number, envAt: (visited: string[]) => ConditionEnv): string[] {
  const visited = [workflow.start];
  for (let i = 0; i < steps; i++) {
    const next = selectNext(workflow, visited[visited.length - 1] ?? "", envAt(visited));
    if (next === null) break;
    visited.push(next);
  }
  return visited;
}

describe("built-in workflows", () => {
  it("ships the four built-ins and every built-in file validates with no diagnostics", async () => {
    const files = await builtinFiles();
    const names = files.map((f) => f.split("/").pop());
    for (const name of ["implement-review.kdl", "pr-rework.kdl", "quick.kdl", "review-only.kdl"]) {
      expect(names).toContain(name);
    }
    for (const file of [...files, BENCH_WORKFLOW]) expect(await validateWorkflowFile(file)).toEqual([]);
  });

  it("lists built-ins by name, sorted, with descriptions", async () => {
    const listed = await listWorkflows("/nonexistent-project");
    const names = listed.map((w) => w.name);
    expect(names).toEqual([...names].sort());
    for (const name of ["implement-review", "pr-rework", "quick", "review-only"]) {
      expect(listed.find((w) => w.name === name)?.source).toBe(`builtin:${name}`);
    }
    expect(listed.every((w) => (w.description ?? "").length > 0 && w.error === undefined)).toBe(true);
  });

  it("implement-review runs every review in parallel and loops fix → gates", async () => {
    const workflow = await loadWorkflow("implement-review", "/nonexistent-project");
    const reviews = workflow.stages.get("reviews");
    expect(reviews?.children.map((c) => c.id)).toEqual(["review_code", "review_security", "review_tests"]);
    expect(reviews?.children.every((c) => c.parentId === "reviews" && c.agent === "reviewer")).toBe(true);
    expect(workflow.stages.get("fix")?.nextCycle).toBe(true);
    expect(workflow.stages.get("discuss")?.verdict).toBe("NEEDS_DISCUSSION");

    // Blocking findings stay open for two cycles, then the reviewers approve.
    const path = walk(workflow, 20, (visited) => {
      const cycle = visited.filter((s) => s === "fix").length;
      return createFakeConditionEnv({ cycle: () => cycle, blocking_open: () => (cycle < 2 ? 3 : 0) });
    });
    expect(path).toEqual([
      "implement",
      "gates",
      "reviews",
      "decide",
      "fix",
      "gates",
      "reviews",
      "decide",
      "fix",
      "gates",
      "reviews",
      "decide",
      "done",
    ]);
  });

  it("implement-review's decide picks the exit that matches the run state", async () => {
    const workflow = await loadWorkflow("implement-review", "/nonexistent-project");
    const decide = (env: Partial<ConditionEnv>) =>
      selectNext(workflow, "decide", createFakeConditionEnv({ blocking_open: () => 2, ...env }));
    expect(decide({})).toBe("fix");
    expect(decide({ blocking_open: () => 0, gates_passed: () => false })).toBe("fix");
    expect(decide({ verdict: () => "NEEDS_DISCUSSION", blocking_open: () => 0 })).toBe("discuss");
    expect(decide({ all_blocked: () => true })).toBe("blocked");
    expect(decide({ no_progress: () => true })).toBe("stalled");
    expect(decide({ cycle: () => 3, max_cycles: () => 3 })).toBe("escalate");
    expect(decide({ budget_left: () => false })).toBe("escalate");
    expect(selectNext(workflow, "done", createFakeConditionEnv())).toBeNull();
    expect(selectNext(workflow, "review_code", createFakeConditionEnv())).toBeNull();
  });

  it("quick allows at most one fix cycle", async () => {
    const workflow = await loadWorkflow("quick", "/nonexistent-project");
    const path = walk(workflow, 20, (visited) => {
      const cycle = visited.filter((s) => s === "fix").length;
      return createFakeConditionEnv({ cycle: () => cycle, blocking_open: () => 5 });
    });
    expect(path).toEqual([
      "implement",
      "gates",
      "review",
      "decide",
      "fix",
      "gates",
      "review",
      "decide",
      "escalate",
    ]);
  });

  it("review-only has no agent or fix stages", async () => {
    const workflow = await loadWorkflow("review-only", "/nonexistent-project");
    const kinds = new Set([...workflow.stages.values()].map((s) => s.kind));
    expect(kinds.has("agent") || kinds.has("fix")).toBe(false);
    expect(walk(workflow, 10, () => createFakeConditionEnv())).toEqual(["gates", "reviews", "done"]);
  });

  it("pr-rework ingests, verifies, fixes, pushes and replies before re-reviewing", async () => {
    const workflow = await loadWorkflow("pr-rework", "/nonexistent-project");
    expect(workflow.stages.get("ingest")?.action).toBe("ingest");
    expect(workflow.stages.get("verify")).toMatchObject({
      kind: "verify",
      maxRounds: 3,
      cleanRounds: 2,
      agent: "reviewer",
    });
    const path = walk(workflow, 10, () => createFakeConditionEnv());
    expect(path).toEqual(["ingest", "verify", "fix", "gates", "push", "reply", "reviews", "decide", "done"]);
  });

  it("the short-circuit bench workflow skips later reviews when an earlier one fails", async () => {
    const workflow = parseWorkflow(await readFile(BENCH_WORKFLOW, "utf8"), BENCH_WORKFLOW);
    const failing = createFakeConditionEnv({ outcomes: { review_code: "fail" }, blocking_open: () => 1 });
    expect(walk(workflow, 5, () => failing)).toEqual([
      "implement",
      "gates",
      "review_code",
      "decide",
      "fix",
      "gates",
    ]);
    const passing = createFakeConditionEnv({
      outcomes: { review_code: "success", review_security: "success" },
    });
    expect(walk(workflow, 10, () => passing)).toEqual([
      "implement",
      "gates",
      "review_code",
      "review_security",
      "review_tests",
      "decide",
      "done",
    ]);
  });
});
