import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../engine/events.js";
import { notificationFor } from "./notify-on-end.js";

const finished = (over: Partial<Extract<EngineEvent, { type: "task.finished" }>>): EngineEvent => ({
  type: "task.finished",
  taskId: "t-3",
  verdict: "APPROVED",
  status: "completed",
  reason: null,
  cycles: 2,
  branch: "fixpoint/t-3",
  costUsd: 0.4,
  ...over,
});

describe("what a local run notifies", () => {
  it("a final verdict, a limit reached and a human stage; never a cancellation or a stage", () => {
    expect(notificationFor(finished({}))).toEqual({
      kind: "task.finished",
      taskId: "t-3",
      summary: "t-3 APPROVED on fixpoint/t-3",
      verdict: "APPROVED",
    });
    expect(
      notificationFor(
        finished({ status: "needs_human", verdict: "MAX_CYCLES_REACHED", reason: "2 blocking left" }),
      ),
    ).toMatchObject({
      kind: "task.needs_human",
      summary: "t-3 needs you: cycle limit reached: 2 blocking left",
    });
    expect(
      notificationFor({
        type: "task.paused",
        taskId: "t-4",
        stageId: "sign-off",
        reason: "approve the plan",
      }),
    ).toMatchObject({
      kind: "task.needs_human",
      taskId: "t-4",
      summary: "t-4 needs you: waiting at sign-off: approve the plan",
    });
    expect(notificationFor(finished({ status: "cancelled", verdict: null }))).toBeNull();
    expect(notificationFor({ type: "notice", taskId: "t-3", message: "hello" })).toBeNull();
  });
});
