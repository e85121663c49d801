/**
 * The Store contract's `listTaskJson`: the database writes `status --json`'s task objects, and
 * they must equal what the CLI's `taskJson` makes of the same summaries, key order included, for
 * any text a title or reason can hold. Called from `runStoreContract`, so every store runs it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cancelTask } from "../../src/app/cancel.js";
import { editTask } from "../../src/app/edit-task.js";
import { taskJson } from "../../src/cli/render/json.js";
import type { Lease, Store, TaskFilter } from "../../src/domain/store.js";
import type { Task } from "../../src/domain/types.js";
import { fakeClock } from "../helpers/fake-clock.js";
import { newTask, stage } from "./samples.js";

/** A page's bytes as text: the store hands them over as UTF-8 (TaskJsonPage.json). */
const text = (json: Uint8Array): string => Buffer.from(json).toString("utf8");
const parsePage = (json: Uint8Array): Record<string, unknown>[] => JSON.parse(`[${text(json)}]`);

async function expectSameAsSummaries(store: Store, filter: TaskFilter & { limit: number }): Promise<void> {
  const page = await store.listTaskJson(filter);
  const summaries = await store.listTaskSummaries(filter);
  const objects = parsePage(page.json);
  expect(objects).toEqual(summaries.map(taskJson));
  for (const o of objects) expect(Object.keys(o)).toEqual(Object.keys(taskJson(summaries[0] as never)));
  expect(page.count).toBe(summaries.length);
  expect(page.lastSeq).toBe(summaries.at(-1)?.seq ?? null);
}

function lease(task: Task | null): Lease {
  if (task === null || task.workerId === null) throw new Error("expected a claimed task");
  return { taskId: task.id, workerId: task.workerId, token: task.leaseToken };
}

export function taskJsonContract(getStore: () => Store): void {
  describe("listTaskJson", () => {
    it("writes each task as the CLI's taskJson would, nulls, costs and milliseconds included", async () => {
      const store = getStore();
      const a = await store.createTask(
        newTask({ title: 'quote " back\\slash\nnew line\ttab é 🙂' }),
        1_700_000_000_005,
      );
      const b = await store.createTask(newTask({ title: "second" }), 1_700_000_000_999);
      await store.createTask(newTask({ title: "third", parentId: a.id }), 86_400_000);
      await store.updateTask(
        b.id,
        {
          status: "needs_human",
          finalVerdict: "MAX_CYCLES_REACHED",
          reason: "2 blocking\u0001 findings",
          cycle: 3,
          currentStage: "fix",
          branch: "fixpoint/t-2",
          worktreePath: "/tmp/wt/t-2",
        },
        1_700_000_123_456,
      );
      const run = await store.createRun(b.id, "start", {}, 2);
      for (const cost of [0.0125, 1.5]) {
        await store.commitStage({
          taskId: b.id,
          runId: run.id,
          stage: stage(b.id, run.id, { costUsd: cost }),
          checkpoint: null,
          findings: [],
          events: [],
          task: {},
          now: 1_700_000_123_456,
        });
      }
      await expectSameAsSummaries(store, { limit: 10 });
      await expectSameAsSummaries(store, { limit: 10, statuses: ["needs_human"] });
      await expectSameAsSummaries(store, { limit: 10, excludeStatuses: ["needs_human"] });
      await expectSameAsSummaries(store, {
        limit: 10,
        excludeStatuses: ["cancelled", "queued"],
        newestFirst: true,
      });
      await expectSameAsSummaries(store, { limit: 10, newestFirst: true });
    });

    it("stays right after every kind of task write", async () => {
      const store = getStore();
      // Every task, cancelled ones included, in both orders, as one page and as pages of two.
      const check = async () => {
        for (const newestFirst of [false, true]) {
          await expectSameAsSummaries(store, { limit: 100, newestFirst });
          let afterSeq: number | undefined;
          const pages: string[] = [];
          for (;;) {
            const page = await store.listTaskJson({
              limit: 2,
              newestFirst,
              ...(afterSeq ? { afterSeq } : {}),
            });
            if (page.count > 0) pages.push(text(page.json));
            if (page.lastSeq === null || page.count < 2) break;
            afterSeq = page.lastSeq;
          }
          expect(pages.join(",")).toBe(text((await store.listTaskJson({ limit: 100, newestFirst })).json));
        }
      };
      const a = await store.createTask(newTask({ title: "created" }), 1_000);
      const b = await store.createTask(newTask({ title: "second", parentId: a.id, priority: 2 }), 1_001);
      await store.createTaskOnce({ ...newTask({ title: "once" }), id: "pr-4-cycle-1" }, 1_002);
      await store.createTaskOnce({ ...newTask({ title: "not again" }), id: "pr-4-cycle-1" }, 1_003);
      await check();
      await store.updateTask(a.id, { workflow: "renamed-flow", currentStage: "review", cycle: 1 }, 1_010);
      await check();
      const held = lease(await store.claimTask({ workerId: "host:1:ab", leaseMs: 100, now: 1_020 }));
      await check();
      expect(await store.heartbeat(held, 100, 1_030)).toBe(true);
      await check();
      const run = await store.createRun(held.taskId, "start", {}, 1_040);
      await store.commitStage({
        taskId: held.taskId,
        runId: run.id,
        stage: stage(held.taskId, run.id, { costUsd: 0.25 }),
        checkpoint: null,
        findings: [],
        events: [],
        task: { currentStage: "fix", branch: "fixpoint/x", worktreePath: "/tmp/wt/x" },
        now: 1_050,
      });
      await check();
      await store.releaseTask(held, { status: "needs_human", finalVerdict: "MAX_CYCLES_REACHED" }, 1_060);
      await check();
      // A takeover after an expired lease, then a release that arrives late and writes nothing.
      const first = lease(await store.claimTask({ workerId: "w1", leaseMs: 10, now: 1_070 }));
      const second = lease(await store.claimTask({ workerId: "w2", leaseMs: 10, now: 1_090 }));
      await store.releaseTask(first, { status: "failed" }, 1_091);
      await check();
      await store.releaseTask(second, { status: "completed", finalVerdict: "APPROVED" }, 1_092);
      await check();
      const ctx = { store, clock: fakeClock(1_100), actor: "alice", env: {} };
      await editTask(ctx, { task: b.id, priority: 7, notes: 'look at the "parser" first' });
      await check();
      await editTask(ctx, { task: b.id, maxCycles: 9 });
      await check();
      await cancelTask(ctx, "pr-4-cycle-1");
      await check();
      await store.transaction(async (tx) => {
        await tx.updateTask(a.id, { reason: "inside a transaction" }, 1_200);
        await tx.createTask(newTask({ title: "in a transaction" }), 1_201);
      });
      await check();
      await expect(
        store.transaction(async (tx) => {
          await tx.updateTask(a.id, { reason: "rolled back" }, 1_300);
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      await check();
      const objects = parsePage((await store.listTaskJson({ limit: 100 })).json);
      expect(objects.map((o) => [o.title, o.workflow, o.status, o.priority, o.reason])).toEqual([
        ["created", "renamed-flow", "completed", 0, "inside a transaction"],
        ["second", "default", "needs_human", 7, null],
        ["once", "default", "cancelled", 0, "cancelled by alice"],
        ["in a transaction", "default", "queued", 0, null],
      ]);
    });

    it("pages by lastSeq and says so when nothing is left", async () => {
      const store = getStore();
      for (let i = 0; i < 5; i++) await store.createTask(newTask({ title: `t${i}` }), 10 + i);
      const first = await store.listTaskJson({ limit: 2 });
      expect(parsePage(first.json).map((t) => t.title)).toEqual(["t0", "t1"]);
      const rest = await store.listTaskJson({ limit: 10, afterSeq: first.lastSeq ?? 0 });
      expect(parsePage(rest.json).map((t) => t.title)).toEqual(["t2", "t3", "t4"]);
      const none = await store.listTaskJson({ limit: 10, afterSeq: rest.lastSeq ?? 0 });
      const { release: _, ...shown } = none;
      expect({ ...shown, json: text(none.json) }).toEqual({
        json: "",
        count: 0,
        lastSeq: null,
        tokenFree: false,
      });
    });

    it("a listing of thousands of long rows, read in pages, equals the summaries row for row", async () => {
      // Pages of megabytes: PostgreSQL's arrive in many socket reads, rows cut between them
      // (copy-socket.ts and the native writer, where built).
      const store = getStore();
      const rng = fc.sample(
        fc.record({
          title: fc.string({ unit: "grapheme", minLength: 0, maxLength: 700 }),
          reason: fc.option(fc.string({ unit: "grapheme-ascii", maxLength: 300 }), { nil: undefined }),
          verdict: fc.constantFrom("APPROVED", "MAX_CYCLES_REACHED", null),
        }),
        { numRuns: 2_000, seed: 20261203 },
      );
      const ids: string[] = [];
      for (const [i, r] of rng.entries()) {
        const t = await store.createTask(newTask({ title: r.title }), 1_700_000_000_000 + i * 997);
        ids.push(t.id);
        if (i % 3 === 0)
          await store.updateTask(
            t.id,
            {
              status: r.verdict === null ? "failed" : "completed",
              finalVerdict: r.verdict,
              ...(r.reason === undefined ? {} : { reason: r.reason }),
              cycle: i % 5,
            },
            1_700_000_500_000 + i,
          );
      }
      const filter = { ids };
      let afterSeq: number | undefined;
      let listed = 0;
      for (;;) {
        const page = await store.listTaskJson({
          ...filter,
          limit: 700,
          ...(afterSeq === undefined ? {} : { afterSeq }),
        });
        const summaries = await store.listTaskSummaries({
          ...filter,
          limit: 700,
          ...(afterSeq === undefined ? {} : { afterSeq }),
        });
        expect(parsePage(page.json)).toEqual(summaries.map(taskJson));
        page.release?.();
        listed += page.count;
        if (page.count < 700) break;
        afterSeq = page.lastSeq ?? undefined;
      }
      expect(listed).toBe(2_000);
    }, 120_000);

    it("any title or reason reads back as the same string", async () => {
      const store = getStore();
      await fc.assert(
        fc.asyncProperty(
          fc.string({ unit: "grapheme", maxLength: 40 }),
          fc.string(),
          async (title, reason) => {
            const t = await store.createTask(newTask({ title }), 5);
            await store.updateTask(t.id, { reason }, 6);
            const page = await store.listTaskJson({ limit: 1, ids: [t.id] });
            const [o] = parsePage(page.json);
            expect(o?.title).toBe(title);
            expect(o?.reason).toBe(reason);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
