import { describe, expect, it } from "vitest";
import {
  FINDING_STATUSES,
  type Finding,
  type FindingSource,
  type StageExecution,
  type Task,
} from "../domain/types.js";
import { type ReviewersDeps, reviewerOf, reviewerStats } from "./reviewers.js";

const task = (id: string): Task => ({
  id,
  seq: 1,
  type: "implement",
  title: id,
  prompt: "",
  workflow: "implement-review",
  repo: "/repo",
  baseBranch: "main",
  branch: null,
  worktreePath: null,
  status: "completed",
  finalVerdict: null,
  reason: null,
  maxCycles: 3,
  cycle: 0,
  currentStage: null,
  priority: 0,
  notes: null,
  budget: {},
  agents: {},
  meta: {},
  parentId: null,
  workerId: null,
  leaseExpiresAt: null,
  leaseToken: 0,
  createdAt: 0,
  updatedAt: 0,
});

function f(id: string, status: string, sources: FindingSource[], createdAt = 1000): Finding {
  // A verify stage's refutation is a dismissal with a `refuted: <evidence>` note.
  const refuted = status === "refuted";
  const known = refuted ? "dismissed" : FINDING_STATUSES.find((s) => s === status);
  const finding: Finding = {
    taskId: "t",
    id,
    fingerprint: id,
    severity: "P1",
    category: "correctness",
    title: id,
    body: "",
    file: null,
    lineStart: null,
    lineEnd: null,
    suggestedFix: null,
    sources,
    status: known ?? "open",
    firstCycle: 0,
    lastCycle: 0,
    timesReopened: 0,
    attempts: [],
    note: refuted ? "refuted: the input is validated at the boundary" : null,
    createdAt,
    updatedAt: createdAt,
  };
  return finding;
}

const review = (stage: string, cycle = 0): FindingSource => ({ source: `review:${stage}`, cycle });

function stage(stageId: string, costUsd: number, startedAt = 1000): StageExecution {
  return {
    id: 1,
    runId: 1,
    taskId: "t",
    stageId,
    kind: "review",
    visit: 1,
    cycle: 0,
    outcome: "success",
    failureClass: null,
    failureReason: null,
    verdict: null,
    startedAt,
    endedAt: startedAt,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd,
    headBefore: null,
    headAfter: null,
    sessionId: null,
    summary: null,
    attempts: 1,
  };
}

function deps(findings: Record<string, Finding[]>, stages: Record<string, StageExecution[]>): ReviewersDeps {
  const tasks = Object.keys({ ...findings, ...stages }).map(task);
  return {
    store: {
      getTask: async (id) => tasks.find((t) => t.id === id) ?? null,
      // As the stores read it: one task's or every task's, from `since` on.
      listReviewerActivity: async ({ taskId, since = Number.NEGATIVE_INFINITY }) => {
        const ids = tasks.map((t) => t.id).filter((id) => taskId === undefined || id === taskId);
        return {
          findings: ids.flatMap((id) => findings[id] ?? []).filter((x) => x.createdAt >= since),
          reviews: ids
            .flatMap((id) => (stages[id] ?? []).map((x) => ({ ...x, taskId: id })))
            .filter((x) => x.kind === "review" && x.startedAt >= since),
        };
      },
    },
    agentOf: async (_t, stageId) => ({
      agent: "reviewer",
      model: stageId === "review_code" ? "gpt-5" : null,
    }),
  };
}

describe("reviewerStats", () => {
  const findings = {
    "t-1": [
      f("F-1", "resolved", [review("review_code"), review("review_security")]),
      f("F-2", "dismissed", [review("review_code")]),
      f("F-3", "refuted", [review("review_security")]),
      f("F-4", "open", [review("review_tests")]),
      f("F-5", "resolved", [{ source: "pr:thread-9", cycle: 1, author: "coderabbitai[bot]" }]),
      f("F-6", "open", [{ source: "gate:test", cycle: 0 }]),
    ],
    "t-2": [
      f("F-1", "deferred", [review("review_code")]),
      f("F-2", "resolved", [review("review_code")], 5000),
    ],
  };
  const stages = {
    "t-1": [stage("review_code", 0.3), stage("review_security", 0.2), stage("review_tests", 0.1)],
    "t-2": [stage("review_code", 0.5, 5000)],
  };

  it("counts each finding once per reviewer, in raised and in exactly one outcome", async () => {
    const rows = await reviewerStats(deps(findings, stages));
    expect(rows).toEqual([
      {
        reviewer: "pr:coderabbitai[bot]",
        agent: null,
        model: null,
        raised: 1,
        confirmed: 1,
        refuted: 0,
        dismissed: 0,
        duplicates: 0,
        open: 0,
        cost_usd: 0,
        cost_per_confirmed_usd: 0,
      },
      {
        reviewer: "review_code",
        agent: "reviewer",
        model: "gpt-5",
        raised: 4,
        confirmed: 2,
        refuted: 0,
        dismissed: 1,
        duplicates: 0,
        open: 1,
        cost_usd: 0.8,
        cost_per_confirmed_usd: 0.4,
      },
      {
        reviewer: "review_security",
        agent: "reviewer",
        model: null,
        raised: 2,
        confirmed: 0,
        refuted: 1,
        dismissed: 0,
        duplicates: 1,
        open: 0,
        cost_usd: 0.2,
        cost_per_confirmed_usd: null,
      },
      {
        reviewer: "review_tests",
        agent: "reviewer",
        model: null,
        raised: 1,
        confirmed: 0,
        refuted: 0,
        dismissed: 0,
        duplicates: 0,
        open: 1,
        cost_usd: 0.1,
        cost_per_confirmed_usd: null,
      },
    ]);
    for (const r of rows) {
      expect(r.raised).toBe(r.confirmed + r.refuted + r.dismissed + r.duplicates + r.open);
    }
  });

  it("--since leaves out older findings and review stages; one task gives that task's rows", async () => {
    const recent = await reviewerStats(deps(findings, stages), { since: 4000 });
    expect(recent).toMatchObject([{ reviewer: "review_code", raised: 1, confirmed: 1, cost_usd: 0.5 }]);
    const one = await reviewerStats(deps(findings, stages), { taskId: "t-2" });
    expect(one.map((r) => [r.reviewer, r.raised, r.cost_usd])).toEqual([["review_code", 2, 0.5]]);
  });

  it("counts a task the caller has read as reading it would, and reads nothing", async () => {
    for (const id of ["t-1", "t-2"] as const) {
      const read = { task: task(id), findings: findings[id] ?? [], stages: stages[id] ?? [] };
      const unreadable: ReviewersDeps = {
        ...deps(findings, stages),
        store: {
          getTask: () => Promise.reject(new Error("read")),
          listReviewerActivity: () => Promise.reject(new Error("read")),
        },
      };
      for (const since of [undefined, 4000]) {
        const given = await reviewerStats(unreadable, { read, ...(since ? { since } : {}) });
        expect(given).toEqual(
          await reviewerStats(deps(findings, stages), { taskId: id, ...(since ? { since } : {}) }),
        );
      }
    }
  });

  it("names reviewers by stage, or by PR author; gates are not reviewers", () => {
    expect(reviewerOf({ source: "review:review_code" })).toBe("review_code");
    expect(reviewerOf({ source: "pr:123", author: "alice" })).toBe("pr:alice");
    expect(reviewerOf({ source: "gate:test" })).toBeNull();
  });
});
