/**
 * The Store contract, runnable against any implementation (SQLite now, PostgreSQL later): every
 * test gets a fresh, empty store from `open` and calls its `cleanup` afterwards. Times are
 * explicit numbers, so lease expiry is tested without sleeping.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ARTIFACT_MAX_BYTES, type Lease, type Store } from "../../src/domain/store.js";
import type { Task } from "../../src/domain/types.js";
import { FixpointError } from "../../src/errors.js";
import { dashboardContract } from "./contract-dashboard.js";
import { learningsContract } from "./contract-learnings.js";
import { lookupsContract } from "./contract-lookups.js";
import { taskJsonContract } from "./contract-task-json.js";
import { bareCommit, finding, newTask, stage } from "./samples.js";

/** The lease a claim returned (fails the test when the claim returned nothing). */
function lease(task: Task | null): Lease {
  if (task === null || task.workerId === null) throw new Error("expected a claimed task");
  return { taskId: task.id, workerId: task.workerId, token: task.leaseToken };
}

export type OpenStore = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

export function runStoreContract(name: string, open: OpenStore): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await cleanup();
    });
    dashboardContract(() => store);
    learningsContract(() => store);
    lookupsContract(() => store);
    taskJsonContract(() => store);

    describe("tasks", () => {
      it("creates tasks with t-<seq> ids in order and reads them back", async () => {
        const a = await store.createTask(newTask({ title: "first", budget: { usd: 2 } }), 100);
        const b = await store.createTask(newTask({ title: "second", agents: { review: "codex" } }), 200);
        expect([a.id, a.seq, b.id, b.seq]).toEqual(["t-1", 1, "t-2", 2]);
        expect(a).toMatchObject({
          status: "queued",
          cycle: 0,
          finalVerdict: null,
          workerId: null,
          createdAt: 100,
        });
        expect(await store.getTask("t-2")).toEqual(b);
        expect(b.agents).toEqual({ review: "codex" });
        expect((await store.getTask("t-1"))?.budget).toEqual({ usd: 2 });
      });

      it("finds a task by its number and by a literal id; null when absent", async () => {
        for (let i = 0; i < 29; i++) await store.createTask(newTask(), 1);
        const pr = await store.createTask(newTask({ id: "pr-4-cycle-1", type: "pr-rework" }), 1);
        expect((await store.getTask("29"))?.id).toBe("t-29");
        expect((await store.getTask("t-29"))?.seq).toBe(29);
        expect((await store.getTask("pr-4-cycle-1"))?.seq).toBe(pr.seq);
        expect(await store.getTask("31")).toBeNull();
        expect(await store.getTask("nope")).toBeNull();
      });

      it("rejects a duplicate id and skips numbers an explicit t-<n> id already took", async () => {
        await store.createTask(newTask({ id: "t-2" }), 1);
        await expect(store.createTask(newTask({ id: "t-2" }), 1)).rejects.toMatchObject({ code: "store" });
        const next = await store.createTask(newTask(), 1);
        expect(next.id).not.toBe("t-2");
        expect((await store.listTasks()).map((t) => t.id).sort()).toEqual([next.id, "t-2"].sort());
      });

      it("createTaskOnce creates once and returns the same task afterwards", async () => {
        const first = await store.createTaskOnce({ ...newTask({ title: "rework" }), id: "pr-7-cycle-1" }, 10);
        const again = await store.createTaskOnce({ ...newTask({ title: "other" }), id: "pr-7-cycle-1" }, 20);
        expect(first.created).toBe(true);
        expect(again).toEqual({ task: first.task, created: false });
        expect(await store.countTasks()).toBe(1);
      });

      it("lists and counts with status, id, parent, order and limit filters", async () => {
        const p = await store.createTask(newTask(), 1);
        const c1 = await store.createTask(newTask({ parentId: p.id }), 2);
        const c2 = await store.createTask(newTask({ parentId: p.id }), 3);
        await store.updateTask(c1.id, { status: "completed", finalVerdict: "APPROVED" }, 4);
        const ids = async (f: Parameters<Store["listTasks"]>[0]) =>
          (await store.listTasks(f)).map((t) => t.id);
        expect(await ids({})).toEqual([p.id, c1.id, c2.id]);
        expect(await ids({ newestFirst: true, limit: 2 })).toEqual([c2.id, c1.id]);
        expect(await ids({ statuses: ["queued"] })).toEqual([p.id, c2.id]);
        expect(await ids({ statuses: ["completed", "failed"] })).toEqual([c1.id]);
        expect(await ids({ parentId: p.id })).toEqual([c1.id, c2.id]);
        expect(await ids({ ids: [c2.id, p.id, "missing"] })).toEqual([p.id, c2.id]);
        expect(await store.countTasks({ statuses: ["queued"] })).toBe(2);
        expect(await store.countTasks({ parentId: p.id, statuses: ["completed"] })).toBe(1);
        expect(await ids({ excludeStatuses: ["completed"] })).toEqual([p.id, c2.id]);
        expect(await ids({ excludeStatuses: ["queued", "failed"] })).toEqual([c1.id]);
        expect(await ids({ excludeStatuses: ["queued"], statuses: ["queued", "completed"] })).toEqual([
          c1.id,
        ]);
        expect(await ids({ excludeStatuses: ["cancelled"], newestFirst: true, limit: 2 })).toEqual([
          c2.id,
          c1.id,
        ]);
        expect(await store.countTasks({ excludeStatuses: ["queued"] })).toBe(1);
        expect(await store.countTasks({ parentId: p.id, excludeStatuses: ["completed", "failed"] })).toBe(1);
      });

      it("lists the tasks that still hold a worktree, or a worktree or a branch", async () => {
        await store.createTask(newTask(), 1); // holds neither
        const branched = await store.createTask(newTask(), 2);
        const both = await store.createTask(newTask(), 3);
        await store.updateTask(branched.id, { branch: "fixpoint/t-2" }, 4);
        await store.updateTask(both.id, { branch: "fixpoint/t-3", worktreePath: "/wt/t-3" }, 4);
        const ids = async (f: Parameters<Store["listTasks"]>[0]) =>
          (await store.listTasks(f)).map((t) => t.id);
        expect(await ids({ holding: "worktree" })).toEqual([both.id]);
        expect(await ids({ holding: "worktree-or-branch" })).toEqual([branched.id, both.id]);
        expect(await store.countTasks({ holding: "worktree-or-branch" })).toBe(2);
        expect((await store.listTaskSummaries({ holding: "worktree" })).map((t) => t.id)).toEqual([both.id]);
        await store.updateTask(both.id, { worktreePath: null }, 5);
        expect(await ids({ holding: "worktree" })).toEqual([]);
        expect(await ids({ holding: "worktree-or-branch", statuses: ["queued"] })).toEqual([
          branched.id,
          both.id,
        ]);
      });

      it("updates only the given fields, clears with null, and bumps updatedAt", async () => {
        const t = await store.createTask(newTask({ branch: "fp/t-1" }), 1);
        const u = await store.updateTask(t.id, { cycle: 2, currentStage: "fix", meta: { prNumber: 12 } }, 50);
        expect(u).toMatchObject({
          cycle: 2,
          currentStage: "fix",
          branch: "fp/t-1",
          updatedAt: 50,
          createdAt: 1,
        });
        expect(u.meta).toEqual({ prNumber: 12 });
        const v = await store.updateTask(t.id, { currentStage: null, reason: "tests fail" }, 60);
        expect(v).toMatchObject({ currentStage: null, reason: "tests fail", cycle: 2 });
        expect(await store.getTask(t.id)).toEqual(v);
        await expect(store.updateTask("t-99", { cycle: 1 }, 1)).rejects.toBeInstanceOf(FixpointError);
      });
    });

    describe("claims and leases", () => {
      it("claims each queued task once, oldest first, then returns null", async () => {
        for (let i = 0; i < 3; i++) await store.createTask(newTask(), i);
        const a = await store.claimTask({ workerId: "w1", leaseMs: 1000, now: 10 });
        const b = await store.claimTask({ workerId: "w2", leaseMs: 1000, now: 10 });
        const c = await store.claimTask({ workerId: "w1", leaseMs: 1000, now: 10 });
        expect([a?.id, b?.id, c?.id]).toEqual(["t-1", "t-2", "t-3"]);
        expect(a).toMatchObject({ status: "running", workerId: "w1", leaseExpiresAt: 1010 });
        expect(await store.claimTask({ workerId: "w3", leaseMs: 1000, now: 20 })).toBeNull();
      });

      it("claims the highest priority first, then the oldest; a task defaults to priority 0", async () => {
        await store.createTask(newTask({ title: "low" }), 1);
        await store.createTask(newTask({ title: "urgent", priority: 5, notes: "customer waits" }), 2);
        await store.createTask(newTask({ title: "also low" }), 3);
        await store.createTask(newTask({ title: "urgent too", priority: 5 }), 4);
        const t = await store.createTask(newTask({ title: "demoted", priority: -1 }), 5);
        expect(await store.getTask("t-1")).toMatchObject({ priority: 0, notes: null });
        expect(await store.getTask("t-2")).toMatchObject({ priority: 5, notes: "customer waits" });
        await store.createTask(newTask({ title: "raised later" }), 6);
        const raised = await store.updateTask("t-6", { priority: 9, notes: "raised" }, 7);
        expect(raised).toMatchObject({ priority: 9, notes: "raised" });
        const order: (string | undefined)[] = [];
        for (let i = 0; i < 6; i++)
          order.push((await store.claimTask({ workerId: "w", leaseMs: 1000, now: 10 }))?.id);
        expect(order).toEqual(["t-6", "t-2", "t-4", "t-1", "t-3", t.id]);
      });

      it("an expired lease of a higher-priority task is re-claimed before a queued lower one", async () => {
        await store.createTask(newTask({ priority: 3 }), 1);
        await store.claimTask({ workerId: "dead", leaseMs: 10, now: 2 });
        await store.createTask(newTask(), 3);
        expect((await store.claimTask({ workerId: "w", leaseMs: 10, now: 100 }))?.id).toBe("t-1");
        expect((await store.claimTask({ workerId: "w", leaseMs: 10, now: 100 }))?.id).toBe("t-2");
      });

      it("re-claims a running task whose lease expired; the old worker's heartbeat then fails", async () => {
        await store.createTask(newTask(), 0);
        await store.claimTask({ workerId: "dead", leaseMs: 100, now: 0 });
        expect(await store.claimTask({ workerId: "w2", leaseMs: 100, now: 100 })).toBeNull();
        const taken = await store.claimTask({ workerId: "w2", leaseMs: 100, now: 101 });
        expect(taken).toMatchObject({ id: "t-1", workerId: "w2", leaseExpiresAt: 201 });
        expect(await store.heartbeat({ taskId: "t-1", workerId: "dead", token: 1 }, 100, 102)).toBe(false);
        expect(await store.heartbeat(lease(taken), 500, 150)).toBe(true);
        expect((await store.getTask("t-1"))?.leaseExpiresAt).toBe(650);
        expect(await store.claimTask({ workerId: "w3", leaseMs: 100, now: 300 })).toBeNull();
      });

      it("claims only among the given ids", async () => {
        for (let i = 0; i < 3; i++) await store.createTask(newTask(), i);
        const t = await store.claimTask({ workerId: "w", leaseMs: 10, now: 1, ids: ["t-3"] });
        expect(t?.id).toBe("t-3");
        expect(await store.claimTask({ workerId: "w", leaseMs: 10, now: 1, ids: ["t-3"] })).toBeNull();
      });

      it("never claims finished or cancelled tasks", async () => {
        const t = await store.createTask(newTask(), 0);
        await store.updateTask(t.id, { status: "cancelled" }, 1);
        expect(await store.claimTask({ workerId: "w", leaseMs: 10, now: 2 })).toBeNull();
      });

      it("release applies the final patch and frees the task; a stale worker's release is ignored", async () => {
        await store.createTask(newTask(), 0);
        const w1 = await store.claimTask({ workerId: "w1", leaseMs: 10, now: 0 });
        const w2 = await store.claimTask({ workerId: "w2", leaseMs: 10, now: 20 });
        await store.releaseTask(lease(w1), { status: "failed", reason: "stale" }, 30);
        expect(await store.getTask("t-1")).toMatchObject({ status: "running", workerId: "w2", reason: null });
        await store.releaseTask(lease(w2), { status: "completed", finalVerdict: "APPROVED" }, 40);
        expect(await store.getTask("t-1")).toMatchObject({
          status: "completed",
          finalVerdict: "APPROVED",
          workerId: null,
          leaseExpiresAt: null,
          updatedAt: 40,
        });
        expect(await store.heartbeat(lease(w2), 10, 41)).toBe(false);
      });

      it("checks the token, not only the worker: the same worker's stale claim can neither renew nor release", async () => {
        await store.createTask(newTask(), 0);
        const first = await store.claimTask({ workerId: "w", leaseMs: 10, now: 0 });
        // The lease expires; the same worker id claims the task again (a restarted slot).
        const second = await store.claimTask({ workerId: "w", leaseMs: 10, now: 20 });
        expect(second?.leaseToken).toBeGreaterThan(first?.leaseToken ?? Number.POSITIVE_INFINITY);
        expect(await store.heartbeat(lease(first), 1000, 21)).toBe(false);
        expect((await store.getTask("t-1"))?.leaseExpiresAt).toBe(30);
        await store.releaseTask(lease(first), { status: "failed" }, 22);
        expect(await store.getTask("t-1")).toMatchObject({ status: "running", workerId: "w" });
        expect(await store.heartbeat(lease(second), 1000, 23)).toBe(true);
        expect((await store.getTask("t-1"))?.leaseExpiresAt).toBe(1023);
      });

      it("releaseAndClaim frees the finished task with its patch and takes the next, fenced like a release", async () => {
        for (let i = 0; i < 3; i++) await store.createTask(newTask(), i);
        const first = await store.claimTask({ workerId: "w", leaseMs: 10, now: 5 });
        const second = await store.releaseAndClaim(
          { lease: lease(first), patch: { status: "completed", finalVerdict: "APPROVED" } },
          { workerId: "w", leaseMs: 10, now: 6 },
        );
        expect(second?.id).toBe("t-2");
        expect(await store.getTask("t-1")).toMatchObject({
          status: "completed",
          workerId: null,
          updatedAt: 6,
        });
        // A stale lease (t-1's, released already) releases nothing; the claim still happens.
        const third = await store.releaseAndClaim(
          { lease: lease(first), patch: { status: "failed" } },
          { workerId: "w", leaseMs: 10, now: 7 },
        );
        expect(third?.id).toBe("t-3");
        expect((await store.getTask("t-1"))?.status).toBe("completed");
        expect((await store.getTask("t-2"))?.status).toBe("running");
      });

      it("releaseAndClaim never hands back the task it releases, even left queued or with its lease run out", async () => {
        await store.createTask(newTask(), 0);
        const held = await store.claimTask({ workerId: "w", leaseMs: 10, now: 0 });
        expect(
          await store.releaseAndClaim(
            { lease: lease(held), patch: { status: "queued" } },
            { workerId: "w", leaseMs: 10, now: 50 },
          ),
        ).toBeNull();
        expect(await store.getTask("t-1")).toMatchObject({ status: "queued", workerId: null });
        const again = await store.claimTask({ workerId: "w2", leaseMs: 10, now: 51 });
        expect(again?.id).toBe("t-1");
        expect(
          await store.releaseAndClaim(
            { lease: lease(again), patch: {} },
            { workerId: "w2", leaseMs: 10, now: 99 },
          ),
        ).toBeNull();
        expect(await store.getTask("t-1")).toMatchObject({
          status: "running",
          workerId: null,
          leaseExpiresAt: null,
        });
      });

      it("a heartbeat never renews a cancelled task", async () => {
        await store.createTask(newTask(), 0);
        const held = await store.claimTask({ workerId: "w", leaseMs: 10, now: 0 });
        await store.updateTask("t-1", { status: "cancelled" }, 1);
        expect(await store.heartbeat(lease(held), 1000, 2)).toBe(false);
      });
    });

    describe("runs", () => {
      it("creates, lists and updates runs of a task", async () => {
        const t = await store.createTask(newTask(), 0);
        const r1 = await store.createRun(t.id, "start", { workerId: "w1" }, 5);
        const r2 = await store.createRun(t.id, "resume", {}, 9);
        expect(r1).toMatchObject({
          taskId: t.id,
          kind: "start",
          status: "running",
          startedAt: 5,
          endedAt: null,
        });
        expect(r1.meta).toEqual({ workerId: "w1" });
        const issue = {
          id: "F-1",
          file: "a.ts",
          lineStart: 1,
          lineEnd: 2,
          severity: "P0" as const,
          title: "t",
          body: "b",
          reviewer: "r",
        };
        const ended = await store.updateRun(
          r1.id,
          {
            status: "failed",
            finalVerdict: "MAX_CYCLES_REACHED",
            endedAt: 8,
            meta: { lastReviewIssues: [issue] },
          },
          8,
        );
        expect(ended).toMatchObject({ status: "failed", finalVerdict: "MAX_CYCLES_REACHED", endedAt: 8 });
        expect(ended.meta.lastReviewIssues).toEqual([issue]);
        expect(await store.getRun(r1.id)).toEqual(ended);
        expect((await store.listRuns(t.id)).map((r) => r.id)).toEqual([r1.id, r2.id]);
        expect(await store.getRun(r2.id + 100)).toBeNull();
      });
    });

    describe("fencing", () => {
      it("refuses a stage commit from a worker that no longer holds the task, writing nothing", async () => {
        const t = await store.createTask(newTask(), 0);
        const run = await store.createRun(t.id, "start", {}, 1);
        await store.claimTask({ workerId: "a", leaseMs: 10, now: 2 });
        // a's lease expires; b takes the task over.
        expect((await store.claimTask({ workerId: "b", leaseMs: 1000, now: 100 }))?.id).toBe(t.id);
        const commit = {
          taskId: t.id,
          runId: run.id,
          stage: stage(t.id, run.id),
          checkpoint: { state: { by: "a" } },
          findings: [finding(t.id, "F-1")],
          events: [{ taskId: t.id, runId: run.id, type: "late", data: {} }],
          task: { status: "needs_human" as const },
          now: 101,
        };
        await expect(
          store.commitStage({ ...commit, fence: { taskId: t.id, workerId: "a", token: 1 } }),
        ).rejects.toMatchObject({
          code: "lease_lost",
        });
        expect(await store.listStageExecutions(t.id)).toEqual([]);
        expect(await store.getCheckpoint(run.id)).toBeNull();
        expect(await store.listFindings(t.id)).toEqual([]);
        expect(await store.listEvents(t.id)).toEqual([]);
        expect((await store.getTask(t.id))?.status).toBe("running");
        expect(
          await store.commitStage({ ...commit, fence: { taskId: t.id, workerId: "b", token: 2 } }),
        ).not.toBeNull();
      });

      it("refuses a stage commit fenced by the holder's worker id with an old token", async () => {
        const t = await store.createTask(newTask(), 0);
        const run = await store.createRun(t.id, "start", {}, 1);
        const old = await store.claimTask({ workerId: "w", leaseMs: 10, now: 2 });
        const now = await store.claimTask({ workerId: "w", leaseMs: 1000, now: 100 });
        const commit = {
          taskId: t.id,
          runId: run.id,
          stage: stage(t.id, run.id),
          checkpoint: { state: { by: "old" } },
          findings: [],
          events: [],
          task: { reason: "late" },
          now: 101,
        };
        await expect(store.commitStage({ ...commit, fence: lease(old) })).rejects.toMatchObject({
          code: "lease_lost",
        });
        expect(await store.getCheckpoint(run.id)).toBeNull();
        expect((await store.getTask(t.id))?.reason).toBeNull();
        expect(await store.commitStage({ ...commit, fence: lease(now) })).not.toBeNull();
        expect((await store.getTask(t.id))?.reason).toBe("late");
      });

      it("refuses a lease on one task fencing a write to another", async () => {
        const a = await store.createTask(newTask(), 0);
        const b = await store.createTask(newTask(), 0);
        const run = await store.createRun(b.id, "start", {}, 1);
        const held = await store.claimTask({ workerId: "w", leaseMs: 1000, now: 2, ids: [a.id] });
        const commit = {
          taskId: b.id,
          runId: run.id,
          stage: null,
          checkpoint: { state: {} },
          findings: [],
          events: [],
          task: {},
          now: 3,
          fence: lease(held),
        };
        await expect(store.commitStage(commit)).rejects.toMatchObject({ code: "lease_lost" });
        expect(await store.getCheckpoint(run.id)).toBeNull();
      });
    });

    describe("transactions", () => {
      it("commits every write made through tx together", async () => {
        const t = await store.createTask(newTask(), 0);
        const run = await store.transaction(async (tx) => {
          const r = await tx.createRun(t.id, "start", {}, 1);
          await tx.updateTask(t.id, { status: "needs_human", reason: "asked" }, 2);
          await tx.appendEvents([{ taskId: t.id, runId: r.id, type: "resumed", data: {} }], 2);
          return r;
        });
        expect((await store.listRuns(t.id)).map((r) => r.id)).toEqual([run.id]);
        expect((await store.getTask(t.id))?.reason).toBe("asked");
        expect((await store.listEvents(t.id)).map((e) => e.type)).toEqual(["resumed"]);
      });

      it("writes nothing when fn throws, and rethrows its error", async () => {
        const t = await store.createTask(newTask(), 0);
        await expect(
          store.transaction(async (tx) => {
            await tx.createRun(t.id, "start", {}, 1);
            await tx.updateTask(t.id, { status: "cancelled" }, 2);
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect(await store.listRuns(t.id)).toEqual([]);
        expect((await store.getTask(t.id))?.status).toBe("queued");
      });

      it("makes other callers wait instead of running inside an open transaction", async () => {
        const t = await store.createTask(newTask(), 0);
        let release!: () => void;
        const held = new Promise<void>((r) => {
          release = r;
        });
        const tx = store.transaction(async (x) => {
          await x.updateTask(t.id, { reason: "inside" }, 1);
          await held;
          throw new Error("rolled back");
        });
        // Started while the transaction is open: it must not be rolled back with it.
        const outside = store.appendEvents([{ taskId: t.id, runId: null, type: "outside", data: {} }], 2);
        release();
        await expect(tx).rejects.toThrow("rolled back");
        await outside;
        expect((await store.listEvents(t.id)).map((e) => e.type)).toEqual(["outside"]);
        expect((await store.getTask(t.id))?.reason).toBeNull();
      });

      it("with a fence, refuses to run for a worker that no longer holds the task", async () => {
        const t = await store.createTask(newTask(), 0);
        const a = await store.claimTask({ workerId: "a", leaseMs: 10, now: 1 });
        const b = await store.claimTask({ workerId: "b", leaseMs: 1000, now: 100 });
        expect(b?.id).toBe(t.id);
        const stale = { taskId: t.id, workerId: "a", token: a?.leaseToken ?? 0 };
        await expect(
          store.transaction(async (tx) => tx.updateTask(t.id, { reason: "late" }, 101), { fence: stale }),
        ).rejects.toMatchObject({ code: "lease_lost" });
        expect((await store.getTask(t.id))?.reason).toBeNull();
        const fresh = { taskId: t.id, workerId: "b", token: b?.leaseToken ?? 0 };
        await store.transaction(async (tx) => tx.updateTask(t.id, { reason: "ok" }, 102), { fence: fresh });
        expect((await store.getTask(t.id))?.reason).toBe("ok");
      });
    });

    describe("task summaries", () => {
      it("list tasks without prompts, with what each has cost over all its runs", async () => {
        const a = await store.createTask(newTask({ prompt: "a long prompt" }), 1);
        const b = await store.createTask(newTask(), 2);
        const r1 = await store.createRun(a.id, "start", {}, 3);
        const r2 = await store.createRun(a.id, "retry", {}, 4);
        const usage = { input: 100, output: 20, cacheRead: 5, cacheWrite: 1 };
        const none = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
        // Paid stages, one that used tokens a subscription paid for (cost 0), one that spent nothing.
        for (const [runId, cost, used] of [
          [r1.id, 0.25, usage],
          [r2.id, 0.5, usage],
          [r2.id, 0, { ...none, output: 7 }],
          [r2.id, 0, none],
        ] as const) {
          await store.commitStage({
            taskId: a.id,
            runId,
            stage: stage(a.id, runId, { usage: used, costUsd: cost }),
            checkpoint: null,
            findings: [],
            events: [],
            task: {},
            now: 5,
          });
        }
        const [sa, sb] = await store.listTaskSummaries();
        expect(sa).toMatchObject({ id: a.id, costUsd: 0.75, tokens: 259, status: "queued" });
        expect(sa).not.toHaveProperty("prompt");
        expect(sb).toMatchObject({ id: b.id, costUsd: 0, tokens: 0 });
        expect(await store.listTaskSummaries({ ids: [b.id] })).toHaveLength(1);
      });

      it("page by seq: afterSeq + limit walks every matching task once, in order, both directions", async () => {
        const made: string[] = [];
        for (let i = 0; i < 7; i++) {
          const t = await store.createTask(newTask(), i);
          made.push(t.id);
          if (i % 3 === 1) await store.updateTask(t.id, { status: "cancelled" }, i);
        }
        const live = made.filter((_, i) => i % 3 !== 1);
        const walk = async (newestFirst: boolean): Promise<string[]> => {
          const seen: string[] = [];
          let afterSeq: number | undefined;
          for (;;) {
            const page = await store.listTaskSummaries({
              statuses: ["queued"],
              limit: 2,
              newestFirst,
              ...(afterSeq === undefined ? {} : { afterSeq }),
            });
            seen.push(...page.map((t) => t.id));
            const last = page.at(-1);
            if (page.length < 2 || !last) return seen;
            afterSeq = last.seq;
          }
        };
        expect(await walk(false)).toEqual(live);
        expect(await walk(true)).toEqual([...live].reverse());
      });
    });

    describe("commitStage", () => {
      it("sums what the task's other runs spent, and nothing of the run asked about", async () => {
        const t = await store.createTask(newTask(), 0);
        const other = await store.createTask(newTask(), 0);
        const first = await store.createRun(t.id, "start", {}, 1);
        const second = await store.createRun(t.id, "resume", {}, 2);
        const usage = (n: number) => ({ input: n, output: 2 * n, cacheRead: 3, cacheWrite: 4 });
        const commit = (taskId: string, runId: number, costUsd: number, n: number) =>
          store.commitStage(
            bareCommit(taskId, runId, { stage: stage(taskId, runId, { costUsd, usage: usage(n) }) }),
          );
        expect(await store.spendOutsideRun(t.id, second.id)).toEqual({ costUsd: 0, tokens: 0 });
        await commit(t.id, first.id, 0.25, 100);
        await commit(t.id, first.id, 0.5, 10);
        await commit(t.id, second.id, 2, 1000);
        await commit(other.id, (await store.createRun(other.id, "start", {}, 3)).id, 4, 7);
        expect(await store.spendOutsideRun(t.id, second.id)).toEqual({
          costUsd: 0.75,
          tokens: 300 + 7 + 30 + 7,
        });
        expect(await store.spendOutsideRun(t.id, first.id)).toEqual({ costUsd: 2, tokens: 3000 + 7 });
      });

      it("writes stage, checkpoint, findings, events and task fields together", async () => {
        const t = await store.createTask(newTask(), 0);
        const run = await store.createRun(t.id, "start", {}, 1);
        const saved = await store.commitStage({
          taskId: t.id,
          runId: run.id,
          stage: stage(t.id, run.id),
          checkpoint: { state: { next: "fix", context: { cycle: 1, list: [1, "a", null] } } },
          findings: [finding(t.id, "F-1"), finding(t.id, "F-2", { severity: "P2" })],
          events: [{ taskId: t.id, runId: run.id, type: "stage.end", data: { stage: "review-a" } }],
          task: { currentStage: "fix", cycle: 1 },
          now: 3_000,
        });
        expect(saved).toEqual({ ...stage(t.id, run.id), id: saved?.id });
        expect(await store.listStageExecutions(t.id)).toEqual([saved]);
        expect(await store.listStageExecutions(t.id, run.id + 1)).toEqual([]);
        expect(await store.getCheckpoint(run.id)).toEqual({
          runId: run.id,
          taskId: t.id,
          seq: 1,
          state: { next: "fix", context: { cycle: 1, list: [1, "a", null] } },
          createdAt: 3_000,
        });
        expect((await store.listFindings(t.id)).map((f) => f.id)).toEqual(["F-1", "F-2"]);
        const events = await store.listEvents(t.id);
        expect(events.map((e) => [e.type, e.ts, e.data])).toEqual([
          ["stage.end", 3_000, { stage: "review-a" }],
        ]);
        expect(await store.getTask(t.id)).toMatchObject({ currentStage: "fix", cycle: 1, updatedAt: 3_000 });
      });

      it("keeps the latest checkpoint per run and allows a checkpoint-only commit", async () => {
        const t = await store.createTask(newTask(), 0);
        const run = await store.createRun(t.id, "start", {}, 1);
        const base = { taskId: t.id, runId: run.id, stage: null, findings: [], events: [], task: {} };
        expect(await store.getCheckpoint(run.id)).toBeNull();
        expect(await store.commitStage({ ...base, checkpoint: { state: { n: 1 } }, now: 5 })).toBeNull();
        await store.commitStage({ ...base, checkpoint: { state: { n: 2 } }, now: 6 });
        expect(await store.getCheckpoint(run.id)).toMatchObject({ seq: 2, state: { n: 2 }, createdAt: 6 });
      });

      it("sets markers and stores artifacts with the stage, and refuses them with a lost lease", async () => {
        const t = await store.createTask(newTask(), 0);
        const run = await store.createRun(t.id, "start", {}, 1);
        const reply = { visit: "0.1", turns: { "1": { ok: true, text: "done" } } };
        const transcript = {
          taskId: t.id,
          kind: "transcript" as const,
          name: "r1-a.log",
          text: "## stdout\nok\n",
        };
        const record = {
          taskId: t.id,
          runId: run.id,
          stage: stage(t.id, run.id),
          findings: [],
          events: [],
          task: null,
        };
        await store.setMarker("turns:x", { visit: "0.0", turns: {} }, 1);
        await store.commitStage({
          ...record,
          checkpoint: { state: { n: 1 } },
          markers: [{ key: "turns:x", value: reply }],
          artifacts: [transcript],
          now: 7,
        });
        expect(await store.getMarker("turns:x")).toEqual(reply);
        expect((await store.listArtifacts(t.id, "transcript")).map((a) => [a.name, a.text])).toEqual([
          ["r1-a.log", "## stdout\nok\n"],
        ]);
        // Fenced by a lease the task does not hold: nothing of it is written.
        const refused = store.commitStage({
          ...record,
          checkpoint: { state: { n: 2 } },
          markers: [{ key: "turns:y", value: reply }],
          artifacts: [{ ...transcript, name: "r1-b.log" }],
          now: 8,
          fence: { taskId: t.id, workerId: "nobody", token: 99 },
        });
        await expect(refused).rejects.toMatchObject({ code: "lease_lost" });
        expect(await store.getMarker("turns:y")).toBeNull();
        expect((await store.listArtifacts(t.id, "transcript")).map((a) => a.name)).toEqual(["r1-a.log"]);
        expect(await store.getCheckpoint(run.id)).toMatchObject({ state: { n: 1 } });
      });

      it("writes nothing when any part fails", async () => {
        const t = await store.createTask(newTask(), 0);
        const run = await store.createRun(t.id, "start", {}, 1);
        const failing = store.commitStage({
          taskId: "t-404",
          runId: run.id,
          stage: stage(t.id, run.id),
          checkpoint: { state: { n: 1 } },
          findings: [finding(t.id, "F-1")],
          events: [{ taskId: t.id, runId: run.id, type: "x", data: {} }],
          task: { cycle: 5 },
          now: 5,
        });
        await expect(failing).rejects.toBeInstanceOf(FixpointError);
        expect(await store.listStageExecutions(t.id)).toEqual([]);
        expect(await store.getCheckpoint(run.id)).toBeNull();
        expect(await store.listFindings(t.id)).toEqual([]);
        expect(await store.listEvents(t.id)).toEqual([]);
      });
    });

    describe("findings", () => {
      it("upserts full rows by (task, id) and keeps first-insertion order", async () => {
        const t = await store.createTask(newTask(), 0);
        const ids = Array.from({ length: 11 }, (_, i) => `F-${i + 1}`);
        await store.saveFindings(
          t.id,
          ids.map((id) => finding(t.id, id)),
          [],
          1,
        );
        const updated = finding(t.id, "F-2", {
          status: "fixed",
          lastCycle: 2,
          timesReopened: 1,
          note: "fixed in abc",
          sources: [
            { source: "review:review-a", cycle: 0 },
            { source: "pr:thread-9", cycle: 1, author: "octocat" },
          ],
          attempts: [
            {
              cycle: 1,
              status: "rejected",
              justification: "later",
              commitSha: null,
              rejection: "weak",
              at: 5,
            },
            { cycle: 2, status: "fixed", justification: "guarded", commitSha: "abc", at: 9 },
          ],
          updatedAt: 9,
        });
        await store.saveFindings(
          t.id,
          [updated],
          [{ taskId: t.id, runId: null, type: "finding.edit", data: {} }],
          9,
        );
        const all = await store.listFindings(t.id);
        expect(all.map((f) => f.id)).toEqual(ids);
        expect(all[1]).toEqual(updated);
        expect((await store.listEvents(t.id)).map((e) => e.type)).toEqual(["finding.edit"]);
        const other = await store.createTask(newTask(), 0);
        expect(await store.listFindings(other.id)).toEqual([]);
      });
    });

    describe("events", () => {
      it("lists a task's events in append order, optionally after an id", async () => {
        const a = await store.createTask(newTask(), 0);
        const b = await store.createTask(newTask(), 0);
        await store.appendEvents(
          [
            { taskId: a.id, runId: null, type: "one", data: { n: 1 } },
            { taskId: b.id, runId: null, type: "other", data: {} },
            { taskId: a.id, runId: null, type: "two", data: { n: 2 }, ts: 7 },
          ],
          5,
        );
        await store.appendEvents([{ taskId: a.id, runId: null, type: "three", data: {} }], 6);
        const all = await store.listEvents(a.id);
        expect(all.map((e) => [e.type, e.ts])).toEqual([
          ["one", 5],
          ["two", 7],
          ["three", 6],
        ]);
        const first = all[0];
        expect(first).toBeDefined();
        expect((await store.listEvents(a.id, first?.id)).map((e) => e.type)).toEqual(["two", "three"]);
        expect(await store.listEvents(a.id, all[2]?.id)).toEqual([]);
      });
    });

    describe("workers registry", () => {
      it("records, refreshes, lists and forgets workers", async () => {
        const a = { id: "h1:10:aa", host: "h1", pid: 10, concurrency: 2, startedAt: 5, heartbeatAt: 5 };
        const b = { id: "h2:20:bb", host: "h2", pid: 20, concurrency: 1, startedAt: 7, heartbeatAt: 7 };
        expect(await store.listWorkers()).toEqual([]);
        await store.saveWorker(b);
        await store.saveWorker(a);
        await store.saveWorker({ ...a, heartbeatAt: 50 });
        expect(await store.listWorkers()).toEqual([{ ...a, heartbeatAt: 50 }, b]);
        await store.removeWorker(a.id);
        await store.removeWorker("never-seen");
        expect(await store.listWorkers()).toEqual([b]);
      });
    });

    describe("markers", () => {
      it("sets a marker once, overwrites with setMarker, and reads JSON back", async () => {
        expect(await store.getMarker("pr:12:reply:abc")).toBeNull();
        expect(await store.setMarkerOnce("pr:12:reply:abc", { commentId: 5 }, 1)).toBe(true);
        expect(await store.setMarkerOnce("pr:12:reply:abc", { commentId: 6 }, 2)).toBe(false);
        expect(await store.getMarker("pr:12:reply:abc")).toEqual({ commentId: 5 });
        await store.setMarker("watch:cursor", "2024-01-01", 3);
        await store.setMarker("watch:cursor", [1, true, null], 4);
        expect(await store.getMarker("watch:cursor")).toEqual([1, true, null]);
      });

      it("reads many markers in one call: the ones set, by key, whatever the order asked", async () => {
        expect(await store.getMarkers([])).toEqual(new Map());
        await store.setMarker("counters:t-1:1:p0", { gen: 1, visits: { s0: 1 } }, 1);
        await store.setMarker("counters:t-1:1:p1", { gen: 2, visits: {} }, 2);
        await store.setMarker("counters:t-1:1:p10", "text", 3);
        const got = await store.getMarkers([
          "counters:t-1:1:p1",
          "missing",
          "counters:t-1:1:p0",
          "counters:t-1:1:p1",
        ]);
        expect(got).toEqual(
          new Map<string, unknown>([
            ["counters:t-1:1:p1", { gen: 2, visits: {} }],
            ["counters:t-1:1:p0", { gen: 1, visits: { s0: 1 } }],
          ]),
        );
        expect(await store.getMarkers(["counters:t-1:1:p10"])).toEqual(
          new Map([["counters:t-1:1:p10", "text"]]),
        );
      });
    });

    describe("agent process groups", () => {
      it("records, replaces, lists per task oldest first, and clears groups by (task, pgid, host)", async () => {
        const a = await store.createTask(newTask(), 1);
        const b = await store.createTask(newTask(), 1);
        const g = { taskId: a.id, pgid: 4242, host: "h1", workerId: "w1", startTicks: 777, startedAt: 10 };
        await store.recordAgentGroup(g);
        await store.recordAgentGroup({ ...g, pgid: 4300, startTicks: null, startedAt: 5 });
        await store.recordAgentGroup({ ...g, host: "h2", startedAt: 20 });
        await store.recordAgentGroup({ ...g, taskId: b.id });
        // The same group recorded again (a retry in the same worker) replaces the row.
        await store.recordAgentGroup({ ...g, workerId: "w2", startedAt: 11 });
        expect(await store.listAgentGroups(a.id)).toEqual([
          { ...g, pgid: 4300, startTicks: null, startedAt: 5 },
          { ...g, workerId: "w2", startedAt: 11 },
          { ...g, host: "h2", startedAt: 20 },
        ]);
        await store.clearAgentGroup(a.id, 4242, "h1");
        await store.clearAgentGroup(a.id, 9999, "h1"); // absent: ignored
        expect((await store.listAgentGroups(a.id)).map((x) => [x.pgid, x.host])).toEqual([
          [4300, "h1"],
          [4242, "h2"],
        ]);
        expect(await store.listAgentGroups(b.id)).toHaveLength(1);
      });
    });

    describe("artifacts", () => {
      it("stores, replaces and lists a task's artifacts by kind and name, text intact", async () => {
        const a = await store.createTask(newTask(), 1);
        const b = await store.createTask(newTask(), 1);
        const unicode = "héllo → 世界 \u{1F600}\nline two\n";
        await store.saveArtifact({ taskId: a.id, kind: "transcript", name: "r1-b.log", text: "second" }, 5);
        await store.saveArtifact({ taskId: a.id, kind: "transcript", name: "r1-a.log", text: unicode }, 6);
        await store.saveArtifact(
          { taskId: a.id, kind: "review", name: "t-1-r1-review-0.md", text: "# Review" },
          7,
        );
        await store.saveArtifact({ taskId: b.id, kind: "review", name: "other.md", text: "b's" }, 7);
        // Written again (a stage rerun): replaced, not added.
        await store.saveArtifact({ taskId: a.id, kind: "transcript", name: "r1-b.log", text: "rerun" }, 8);
        const all = await store.listArtifacts(a.id);
        expect(all.map((x) => [x.kind, x.name, x.text])).toEqual([
          ["review", "t-1-r1-review-0.md", "# Review"],
          ["transcript", "r1-a.log", unicode],
          ["transcript", "r1-b.log", "rerun"],
        ]);
        const transcripts = await store.listArtifacts(a.id, "transcript");
        expect(transcripts.map((x) => x.name)).toEqual(["r1-a.log", "r1-b.log"]);
        expect(transcripts[0]).toMatchObject({
          taskId: a.id,
          size: Buffer.byteLength(unicode),
          truncated: false,
          createdAt: 6,
        });
        expect(await store.listArtifacts(b.id, "transcript")).toEqual([]);
      });

      it("keeps the start and the end of an artifact past the cap, and says what it cut", async () => {
        const a = await store.createTask(newTask(), 1);
        const big = `START${"x".repeat(ARTIFACT_MAX_BYTES)}END`;
        await store.saveArtifact({ taskId: a.id, kind: "transcript", name: "big.log", text: big }, 2);
        const [got] = await store.listArtifacts(a.id);
        expect(got?.truncated).toBe(true);
        expect(got?.size).toBe(big.length);
        expect(got?.text.startsWith("START")).toBe(true);
        expect(got?.text.endsWith("END")).toBe(true);
        expect(got?.text).toMatch(/bytes cut by fixpoint/);
        expect(Buffer.byteLength(got?.text ?? "")).toBeLessThan(ARTIFACT_MAX_BYTES + 200);
      });
    });
  });
}
