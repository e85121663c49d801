import { describe, expect, it } from "vitest";
import type { TaskSummary } from "../domain/types.js";
import { needsKind, needsMe, taskReason } from "./attention.js";

type T = Pick<TaskSummary, "status" | "finalVerdict" | "currentStage" | "reason">;
const task = (over: Partial<T>): T => ({
  status: "needs_human",
  finalVerdict: null,
  currentStage: null,
  reason: null,
  ...over,
});

describe("why a task needs a person", () => {
  it("names each kind of stop the morning report groups", () => {
    expect(needsKind(task({ currentStage: "sign-off" }))).toBe("waiting at sign-off");
    expect(needsKind(task({}))).toBe("waiting");
    expect(needsKind(task({ finalVerdict: "BUDGET_EXHAUSTED" }))).toBe("budget reached");
    expect(needsKind(task({ finalVerdict: "MAX_CYCLES_REACHED" }))).toBe("cycle limit reached");
    expect(needsKind(task({ finalVerdict: "NO_PROGRESS" }))).toBe("no progress");
    expect(needsKind(task({ finalVerdict: "NEEDS_DISCUSSION" }))).toBe("escalated");
    expect(needsKind(task({ status: "completed", finalVerdict: "APPROVED" }))).toBeNull();
  });

  it("joins the kind and the stored reason on one line", () => {
    expect(taskReason(task({ finalVerdict: "NO_PROGRESS", reason: "same 3 findings\n  twice" }))).toBe(
      "no progress: same 3 findings twice",
    );
    expect(taskReason(task({ status: "failed", reason: "claude exited 137" }))).toBe(
      "failed: claude exited 137",
    );
    expect(taskReason(task({ status: "failed" }))).toBe("failed");
    expect(taskReason(task({ status: "completed", finalVerdict: "APPROVED" }))).toBe("");
    expect(taskReason(task({ status: "cancelled", reason: "cancelled by ann" }))).toBe("cancelled by ann");
  });

  it("needs-me means needs_human only", () => {
    expect(needsMe({ status: "needs_human" })).toBe(true);
    for (const status of ["queued", "running", "completed", "failed", "cancelled"] as const)
      expect(needsMe({ status })).toBe(false);
  });
});
