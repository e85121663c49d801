/**
 * The Store contract's dashboard reads (paged tasks, the global event feed, findings across
 * tasks, totals). Called from `runStoreContract`, so every implementation runs it.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/store.js";
import { finding, newTask, stage } from "./samples.js";

export function dashboardContract(getStore: () => Store): void {
  describe("dashboard reads", () => {
    it("pages tasks newest first by seq and filters by update time", async () => {
      const store = getStore();
      for (let i = 1; i <= 5; i++) await store.createTask(newTask({ title: `t${i}` }), i * 100);
      await store.updateTask("t-2", { reason: "touched" }, 900);
      const first = await store.listTaskSummaries({ newestFirst: true, limit: 2 });
      expect(first.map((t) => t.id)).toEqual(["t-5", "t-4"]);
      const next = await store.listTaskSummaries({ newestFirst: true, limit: 2, beforeSeq: first[1]?.seq });
      expect(next.map((t) => t.id)).toEqual(["t-3", "t-2"]);
      const recent = await store.listTaskSummaries({ updatedSince: 400 });
      expect(recent.map((t) => t.id)).toEqual(["t-2", "t-4", "t-5"]);
      expect(await store.countTasks({ updatedSince: 400, beforeSeq: 5 })).toBe(2);
    });

    it("listEventsAfter reads every task's events after an id, in order, at most limit", async () => {
      const store = getStore();
      expect(await store.lastEventId()).toBe(0);
      const a = await store.createTask(newTask(), 1);
      const b = await store.createTask(newTask(), 1);
      await store.appendEvents([{ taskId: a.id, runId: null, type: "one", data: {} }], 2);
      await store.appendEvents([{ taskId: b.id, runId: null, type: "two", data: { n: 2 } }], 3);
      await store.appendEvents([{ taskId: a.id, runId: null, type: "three", data: {} }], 4);
      const all = await store.listEventsAfter(0, 10);
      expect(all.map((e) => [e.taskId, e.type])).toEqual([
        [a.id, "one"],
        [b.id, "two"],
        [a.id, "three"],
      ]);
      const page = await store.listEventsAfter(all[0]?.id ?? 0, 1);
      expect(page.map((e) => e.type)).toEqual(["two"]);
      expect(await store.listEventsAfter(all[2]?.id ?? 0, 10)).toEqual([]);
      expect(await store.lastEventId()).toBe(all[2]?.id);
    });

    it("searchFindings filters across tasks by status, severity, reviewer and file, newest first", async () => {
      const store = getStore();
      const a = await store.createTask(newTask(), 1);
      const b = await store.createTask(newTask(), 1);
      await store.saveFindings(a.id, [finding(a.id, "F-1"), finding(a.id, "F-2", { severity: "P3" })], [], 2);
      await store.saveFindings(
        b.id,
        [
          finding(b.id, "F-1", {
            status: "deferred",
            file: "lib/util.ts",
            sources: [{ source: "gate:lint", cycle: 1 }],
          }),
        ],
        [],
        3,
      );
      const ids = (fs: { taskId: string; id: string }[]) => fs.map((f) => `${f.taskId}/${f.id}`);
      expect(ids(await store.searchFindings({ limit: 10 }))).toEqual([
        `${b.id}/F-1`,
        `${a.id}/F-2`,
        `${a.id}/F-1`,
      ]);
      expect(ids(await store.searchFindings({ limit: 10, statuses: ["deferred"] }))).toEqual([`${b.id}/F-1`]);
      expect(ids(await store.searchFindings({ limit: 10, severities: ["P3"] }))).toEqual([`${a.id}/F-2`]);
      expect(ids(await store.searchFindings({ limit: 10, reviewer: "gate:lint" }))).toEqual([`${b.id}/F-1`]);
      expect(ids(await store.searchFindings({ limit: 10, reviewer: "claude" }))).toHaveLength(2);
      expect(ids(await store.searchFindings({ limit: 10, file: "util" }))).toEqual([`${b.id}/F-1`]);
      expect(ids(await store.searchFindings({ limit: 1, offset: 1 }))).toEqual([`${a.id}/F-2`]);
      expect(ids(await store.searchFindings({ limit: 10, taskId: a.id }))).toHaveLength(2);
    });

    it("taskTotals sums the spend and stage time of the tasks a filter selects", async () => {
      const store = getStore();
      const a = await store.createTask(newTask(), 1);
      const b = await store.createTask(newTask(), 1);
      for (const [t, cost] of [
        [a, 0.5],
        [b, 0.25],
      ] as const) {
        const run = await store.createRun(t.id, "start", {}, 2);
        await store.commitStage({
          taskId: t.id,
          runId: run.id,
          stage: stage(t.id, run.id, { costUsd: cost, startedAt: 1000, endedAt: 4000 }),
          checkpoint: null,
          findings: [],
          events: [],
          task: {},
          now: 5,
        });
      }
      await store.updateTask(b.id, { status: "failed" }, 50);
      expect(await store.taskTotals()).toMatchObject({
        tasks: 2,
        costUsd: 0.75,
        agentMs: 6000,
        byStatus: { failed: 1, queued: 1 },
      });
      expect(await store.taskTotals({ statuses: ["failed"] })).toMatchObject({
        tasks: 1,
        costUsd: 0.25,
        agentMs: 3000,
        byStatus: { failed: 1 },
      });
      expect(await store.taskTotals({ excludeStatuses: ["failed"] })).toMatchObject({
        tasks: 1,
        costUsd: 0.5,
      });
      expect((await store.taskTotals({ excludeStatuses: ["failed"] })).byStatus).toEqual({ queued: 1 });
      expect(await store.taskTotals({ statuses: ["completed"] })).toEqual({
        tasks: 0,
        costUsd: 0,
        tokens: 0,
        agentMs: 0,
        byStatus: {},
      });
    });

    it("listReviewerActivity reads every task's findings and review stages, or one task's, from a time on", async () => {
      const store = getStore();
      const a = await store.createTask(newTask(), 1);
      const b = await store.createTask(newTask(), 1);
      const pr = { source: "pr:thread-4", cycle: 1, author: "a-bot[bot]" };
      await store.saveFindings(
        a.id,
        [
          finding(a.id, "F-1", { createdAt: 100, status: "resolved" }),
          finding(a.id, "F-2", {
            createdAt: 900,
            status: "dismissed",
            note: "refuted: checked at the call site",
          }),
        ],
        [],
        2,
      );
      await store.saveFindings(b.id, [finding(b.id, "F-1", { createdAt: 500, sources: [pr] })], [], 3);
      for (const [t, at] of [
        [a, 100],
        [b, 700],
      ] as const) {
        const run = await store.createRun(t.id, "start", {}, 2);
        for (const [stageId, kind, cost] of [
          ["review_code", "review", 0.25],
          ["implement", "agent", 1],
        ] as const) {
          await store.commitStage({
            taskId: t.id,
            runId: run.id,
            stage: stage(t.id, run.id, { stageId, kind, costUsd: cost, startedAt: at, endedAt: at + 10 }),
            checkpoint: null,
            findings: [],
            events: [],
            task: {},
            now: 5,
          });
        }
      }
      const all = await store.listReviewerActivity({});
      expect(all.findings.map((f) => [f.status, f.createdAt]).sort()).toEqual([
        ["dismissed", 900],
        ["open", 500],
        ["resolved", 100],
      ]);
      const dismissed = all.findings.find((f) => f.status === "dismissed");
      expect(dismissed?.note).toBe("refuted: checked at the call site");
      expect(all.findings.find((f) => f.createdAt === 500)?.sources).toEqual([pr]);
      // Review stages only, in the order they ran.
      expect(all.reviews).toEqual([
        { taskId: a.id, stageId: "review_code", costUsd: 0.25, startedAt: 100 },
        { taskId: b.id, stageId: "review_code", costUsd: 0.25, startedAt: 700 },
      ]);
      const recent = await store.listReviewerActivity({ since: 500 });
      expect(recent.findings.map((f) => f.createdAt).sort()).toEqual([500, 900]);
      expect(recent.reviews.map((r) => r.taskId)).toEqual([b.id]);
      const one = await store.listReviewerActivity({ taskId: a.id, since: 100 });
      expect(one.findings).toHaveLength(2);
      expect(one.reviews.map((r) => r.taskId)).toEqual([a.id]);
      expect(await store.listReviewerActivity({ taskId: b.id, since: 800 })).toEqual({
        findings: [],
        reviews: [],
      });
    });
  });
}
