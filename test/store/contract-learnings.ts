/**
 * The Store contract's learnings (issue 16): ids, listing per repository, removal, hits, and the
 * stage commit that adds learnings and counts hits atomically. Called from `runStoreContract`.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/store.js";
import type { NewLearning } from "../../src/domain/types.js";
import { bareCommit, newTask, stage } from "./samples.js";

function learning(overrides: Partial<NewLearning> = {}): NewLearning {
  return {
    repo: "/repo",
    text: "inputs are validated at the boundary",
    scope: "src/lib/**",
    source: { kind: "dismissed", taskId: "t-1", findingId: "F-2" },
    origin: { file: "src/lib/a.ts", lineStart: 10, lineEnd: 12, title: "missing type check", severity: "P1" },
    createdAt: 1_000,
    createdBy: "alice",
    ...overrides,
  };
}

export function learningsContract(getStore: () => Store): void {
  describe("learnings", () => {
    it("assigns L-<n> in order, reads back every field, lists per repository oldest first", async () => {
      const store = getStore();
      const a = await store.addLearning(learning());
      const b = await store.addLearning(
        learning({ repo: "/other", scope: null, origin: null, source: { kind: "person" }, text: "b" }),
      );
      const c = await store.addLearning(learning({ source: { kind: "pr-reply", author: "bob" }, text: "c" }));
      expect([a.id, b.id, c.id]).toEqual(["L-1", "L-2", "L-3"]);
      expect(a).toEqual({ ...learning(), id: "L-1", hits: 0, lastHitAt: null, removedAt: null });
      expect(b).toMatchObject({ scope: null, origin: null, source: { kind: "person" } });
      expect((await store.listLearnings()).map((l) => l.id)).toEqual(["L-1", "L-2", "L-3"]);
      expect((await store.listLearnings({ repo: "/repo" })).map((l) => l.text)).toEqual([a.text, "c"]);
      expect(await store.getLearning("3")).toEqual(c);
      expect(await store.getLearning("L-9")).toBeNull();
      expect(await store.getLearning("nope")).toBeNull();
    });

    it("removes a learning once: hidden from listings unless asked, never counted again", async () => {
      const store = getStore();
      const a = await store.addLearning(learning());
      await store.addLearning(learning({ text: "kept" }));
      const removed = await store.removeLearning("L-1", 5_000);
      expect(removed).toMatchObject({ id: a.id, removedAt: 5_000 });
      expect(await store.removeLearning("L-1", 6_000)).toBeNull();
      expect(await store.removeLearning("L-7", 6_000)).toBeNull();
      expect((await store.listLearnings()).map((l) => l.text)).toEqual(["kept"]);
      expect((await store.listLearnings({ includeRemoved: true })).map((l) => l.id)).toEqual(["L-1", "L-2"]);
      await store.recordLearningHit("L-1", 7_000);
      expect((await store.getLearning("L-1"))?.hits).toBe(0);
      // A removed learning's id is never reused.
      expect((await store.addLearning(learning())).id).toBe("L-3");
    });

    it("counts hits with the time of the last one; unknown ids are ignored", async () => {
      const store = getStore();
      await store.addLearning(learning());
      await store.recordLearningHit("L-1", 2_000);
      await store.transaction(async (tx) => {
        await tx.recordLearningHit("L-1", 3_000);
        await tx.recordLearningHit("L-42", 3_000);
      });
      expect(await store.getLearning("L-1")).toMatchObject({ hits: 2, lastHitAt: 3_000 });
    });

    it("a stage commit adds learnings and counts hits with the stage, or nothing when it fails", async () => {
      const store = getStore();
      const t = await store.createTask(newTask(), 1);
      const run = await store.createRun(t.id, "start", {}, 1);
      await store.addLearning(learning());
      await store.commitStage(
        bareCommit(t.id, run.id, {
          stage: stage(t.id, run.id),
          now: 4_000,
          learnings: {
            add: [learning({ source: { kind: "refuted", taskId: t.id }, text: "new" })],
            hits: ["L-1", "L-1"],
          },
        }),
      );
      expect(await store.getLearning("L-1")).toMatchObject({ hits: 2, lastHitAt: 4_000 });
      expect((await store.getLearning("L-2"))?.text).toBe("new");
      // Fenced by a lease nobody holds: refused, and neither the learning nor the hit is written.
      await expect(
        store.commitStage(
          bareCommit(t.id, run.id, {
            now: 5_000,
            learnings: { add: [learning({ text: "lost" })], hits: ["L-1"] },
            fence: { taskId: t.id, workerId: "ghost", token: 9 },
          }),
        ),
      ).rejects.toMatchObject({ code: "lease_lost" });
      expect(await store.getLearning("L-1")).toMatchObject({ hits: 2 });
      expect(await store.listLearnings()).toHaveLength(2);
    });
  });
}
