import { describe, expect, it } from "vitest";
import type { PullRequest } from "../domain/github.js";
import { closedMessage } from "../github/stage/pull-of-task.js";
import { pullRequestState } from "./pr-state.js";

const opened = (ts: number, pr = 12) => ({
  type: "github.pr_opened",
  ts,
  data: { pr, url: `https://github.com/o/r/pull/${pr}`, draft: false },
});
const pull = (state: PullRequest["state"]) => ({ number: 12, state }) as PullRequest;
const stage = (endedAt: number, summary: string) => ({ kind: "github", summary, endedAt });

describe("a task's pull request state, from the store alone", () => {
  it("is open once a stage opened it, then merged or closed when a later stage found it so", () => {
    const task = { meta: { prNumber: 12 } };
    expect(pullRequestState({ meta: {} }, [], [])).toBeNull();
    expect(pullRequestState(task, [], [])).toEqual({ number: 12, state: "unknown", url: null, at: null });
    expect(pullRequestState(task, [opened(10)], [])).toEqual({
      number: 12,
      state: "open",
      url: "https://github.com/o/r/pull/12",
      at: 10,
    });
    for (const state of ["merged", "closed"] as const) {
      expect(pullRequestState(task, [opened(10)], [stage(20, closedMessage(pull(state)))])).toEqual({
        number: 12,
        state,
        url: "https://github.com/o/r/pull/12",
        at: 20,
      });
    }
  });

  it("the newest fact wins, and other stages' summaries are not read as PR states", () => {
    const task = { meta: { prNumber: 12 } };
    const reopened = pullRequestState(
      task,
      [opened(10), { ...opened(30), type: "github.pr_updated" }],
      [stage(20, closedMessage(pull("closed")))],
    );
    expect(reopened?.state).toBe("open");
    const other = pullRequestState(
      task,
      [opened(10)],
      [{ kind: "agent", summary: "pull request #12 was merged", endedAt: 40 }],
    );
    expect(other?.state).toBe("open");
  });
});
