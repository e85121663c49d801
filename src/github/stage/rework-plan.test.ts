import { describe, expect, it } from "vitest";
import type { PullRequest } from "../../domain/github.js";
import type { TaskSummary } from "../../domain/types.js";
import { decideRework, reworkCycleOf, reworkTaskId } from "./rework-plan.js";

const pull = (over: Partial<PullRequest> = {}): PullRequest => ({
  number: 7,
  nodeId: "PR_7",
  url: "https://github.example/o/r/pull/7",
  state: "open",
  draft: false,
  title: "A change",
  body: "",
  head: "feature-x",
  base: "main",
  labels: [],
  author: "alice",
  ...over,
});

let seq = 0;
const task = (id: string, over: Partial<TaskSummary> = {}): TaskSummary => ({
  id,
  seq: ++seq,
  type: id.startsWith("pr-") ? "pr-rework" : "implement",
  title: id,
  workflow: "pr-rework",
  baseBranch: "main",
  branch: "feature-x",
  worktreePath: `/wt/${id}`,
  status: "completed",
  finalVerdict: "APPROVED",
  reason: null,
  maxCycles: 3,
  cycle: 1,
  currentStage: null,
  priority: 0,
  parentId: null,
  createdAt: 0,
  updatedAt: 0,
  costUsd: 0,
  tokens: 0,
  ...over,
});

describe("decideRework", () => {
  it("ids are pr-<n>-cycle-<k> and only match their own PR", () => {
    expect(reworkTaskId(7, 2)).toBe("pr-7-cycle-2");
    expect(reworkCycleOf("pr-7-cycle-2", 7)).toBe(2);
    expect(reworkCycleOf("pr-17-cycle-2", 7)).toBeNull();
    expect(reworkCycleOf("t-7", 7)).toBeNull();
  });

  it("stops at a merged or closed PR", () => {
    expect(decideRework(pull({ state: "merged" }), [], 2).kind).toBe("closed");
    expect(decideRework(pull({ state: "closed" }), [], 2).kind).toBe("closed");
  });

  it("creates cycle 1 on the original task's branch, then the next cycle after the previous one finished", () => {
    const original = task("t-3");
    expect(decideRework(pull(), [original, task("t-4", { branch: "other" })], 2)).toEqual({
      kind: "create",
      cycle: 1,
      original,
      previous: null,
    });
    const c1 = task("pr-7-cycle-1");
    expect(decideRework(pull(), [original, c1, task("pr-17-cycle-1")], 2)).toMatchObject({
      kind: "create",
      cycle: 2,
      previous: c1,
    });
  });

  it("continues an unfinished rework task instead of opening another cycle", () => {
    for (const over of [
      { status: "running" as const },
      { status: "queued" as const },
      { status: "needs_human" as const, currentStage: "fix" },
    ]) {
      const c1 = task("pr-7-cycle-1", over);
      expect(decideRework(pull(), [c1], 2)).toEqual({ kind: "continue", task: c1 });
    }
  });

  it("past max-rework-cycles escalates the original task, else the latest rework task", () => {
    const c1 = task("pr-7-cycle-1");
    const c2 = task("pr-7-cycle-2");
    expect(decideRework(pull(), [task("t-3"), c1, c2], 2)).toMatchObject({
      kind: "limit",
      escalate: { id: "t-3" },
      cycles: 2,
    });
    expect(decideRework(pull(), [c1, c2], 2)).toMatchObject({
      kind: "limit",
      escalate: { id: "pr-7-cycle-2" },
    });
  });
});
