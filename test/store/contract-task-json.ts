/**
 * The Store contract's `listTaskJson`: the database writes `status --json`'s task objects, and
 * they must equal what the CLI's `taskJson` makes of the same summaries, key order included, for
 * any text a title or reason can hold. Called from `runStoreContract`, so every store runs it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { taskJson } from "../../src/cli/render/json.js";
import type { Store, TaskFilter } from "../../src/domain/store.js";
import { newTask, stage } from "./samples.js";

const parsePage = (json: string): Record<string, unknown>[] => JSON.parse(`[${json}]`);

async function expectSameAsSummaries(store: Store, filter: TaskFilter & { limit: number }): Promise<void> {
  const page = await store.listTaskJson(filter);
  const summaries = await store.listTaskSummaries(filter);
  const objects = parsePage(page.json);
  expect(objects).toEqual(summaries.map(taskJson));
  for (const o of objects) expect(Object.keys(o)).toEqual(Object.keys(taskJson(summaries[0] as never)));
  expect(page.count).toBe(summaries.length);
  expect(page.lastSeq).toBe(summaries.at(-1)?.seq ?? null);
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
      await expectSameAsSummaries(store, { limit: 10, newestFirst: true });
    });

    it("pages by lastSeq and says so when nothing is left", async () => {
      const store = getStore();
      for (let i = 0; i < 5; i++) await store.createTask(newTask({ title: `t${i}` }), 10 + i);
      const first = await store.listTaskJson({ limit: 2 });
      expect(parsePage(first.json).map((t) => t.title)).toEqual(["t0", "t1"]);
      const rest = await store.listTaskJson({ limit: 10, afterSeq: first.lastSeq ?? 0 });
      expect(parsePage(rest.json).map((t) => t.title)).toEqual(["t2", "t3", "t4"]);
      expect(await store.listTaskJson({ limit: 10, afterSeq: rest.lastSeq ?? 0 })).toEqual({
        json: "",
        count: 0,
        lastSeq: null,
      });
    });

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
