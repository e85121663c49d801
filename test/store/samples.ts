/** Small builders for store tests: valid rows with the fields a test cares about overridden. */
import type { StageCommit } from "../../src/domain/store.js";
import type { Finding, NewStageExecution, NewTask } from "../../src/domain/types.js";

export function newTask(overrides: Partial<NewTask> = {}): NewTask {
  return {
    type: "implement",
    title: "Add a greeting",
    prompt: "Make main print hello",
    workflow: "default",
    repo: "/repo",
    baseBranch: "main",
    maxCycles: 3,
    ...overrides,
  };
}

export function finding(taskId: string, id: string, overrides: Partial<Finding> = {}): Finding {
  return {
    taskId,
    id,
    fingerprint: `fp-${id}`,
    severity: "P1",
    category: "bug",
    title: `Problem ${id}`,
    body: "It breaks when the input is empty.",
    file: "src/main.ts",
    lineStart: 10,
    lineEnd: 12,
    suggestedFix: null,
    sources: [{ source: "review:review-a", cycle: 0, author: "claude" }],
    status: "open",
    firstCycle: 0,
    lastCycle: 0,
    timesReopened: 0,
    attempts: [],
    note: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...overrides,
  };
}

export function stage(
  taskId: string,
  runId: number,
  overrides: Partial<NewStageExecution> = {},
): NewStageExecution {
  return {
    runId,
    taskId,
    stageId: "review-a",
    kind: "review",
    visit: 1,
    cycle: 0,
    outcome: "success",
    failureClass: null,
    failureReason: null,
    verdict: "CHANGES_REQUESTED",
    startedAt: 2_000,
    endedAt: 2_500,
    usage: { input: 1200, output: 300, cacheRead: 50, cacheWrite: 7 },
    costUsd: 0.0125,
    headBefore: "aaa111",
    headAfter: "aaa111",
    sessionId: "sess-1",
    summary: "2 findings (1 P1, 1 P2)",
    attempts: 1,
    ...overrides,
  };
}

/** A stage commit of run `runId` that writes nothing but what `overrides` names (at time 4000 unless given). */
export function bareCommit(taskId: string, runId: number, overrides: Partial<StageCommit> = {}): StageCommit {
  return {
    taskId,
    runId,
    stage: null,
    checkpoint: null,
    findings: [],
    events: [],
    task: {},
    now: 4_000,
    ...overrides,
  };
}
