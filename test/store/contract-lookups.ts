/**
 * The Store contract's narrow reads, which read what a caller needs instead of everything stored:
 * artifacts by name (restoring only the files a folder lacks) and tasks by id prefix and branch
 * (a PR's rework tasks). Called from `runStoreContract`, so every implementation runs it.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/store.js";
import { newTask } from "./samples.js";

export function lookupsContract(getStore: () => Store): void {
  describe("narrow reads", () => {
    it("names a task's artifacts without their text, and reads only the ones asked for", async () => {
      const store = getStore();
      const a = await store.createTask(newTask(), 1);
      const b = await store.createTask(newTask(), 2);
      await store.saveArtifact({ taskId: a.id, kind: "transcript", name: "r1-b.log", text: "second" }, 3);
      await store.saveArtifact({ taskId: a.id, kind: "transcript", name: "r1-a.log", text: "first" }, 4);
      await store.saveArtifact({ taskId: a.id, kind: "review", name: "t-1-r1-review-0.md", text: "# R" }, 5);
      await store.saveArtifact({ taskId: b.id, kind: "transcript", name: "r1-c.log", text: "b's" }, 6);

      expect(await store.artifactNames(a.id, "transcript")).toEqual(["r1-a.log", "r1-b.log"]);
      expect(await store.artifactNames(a.id, "review")).toEqual(["t-1-r1-review-0.md"]);
      expect(await store.artifactNames(b.id, "review")).toEqual([]);
      // An unknown name, another kind's and another task's are no rows.
      const named = await store.listArtifacts(a.id, "transcript", [
        "r1-b.log",
        "r1-zz.log",
        "t-1-r1-review-0.md",
        "r1-c.log",
      ]);
      expect(named.map((x) => [x.name, x.text])).toEqual([["r1-b.log", "second"]]);
      expect(await store.listArtifacts(a.id, "transcript", [])).toEqual([]);
    });

    it("lists tasks by id prefix and by branch, in every listing", async () => {
      const store = getStore();
      const mk = async (id: string, at: number) =>
        (await store.createTaskOnce({ ...newTask(), id }, at)).task;
      const r1 = await mk("pr-7-cycle-1", 1);
      await mk("pr-70-cycle-1", 2);
      const r12 = await mk("pr-7-cycle-12", 3);
      await mk("pr-7-cycle", 4);
      const plain = await store.createTask(newTask(), 5);
      await store.updateTask(plain.id, { branch: "feature/x" }, 6);
      await store.updateTask(r12.id, { branch: "feature/x" }, 7);
      const ids = async (f: Parameters<Store["listTasks"]>[0]) => (await store.listTasks(f)).map((t) => t.id);

      expect(await ids({ idPrefix: "pr-7-cycle-" })).toEqual([r1.id, r12.id]);
      expect((await store.listTaskSummaries({ idPrefix: "pr-7-cycle-" })).map((t) => t.id)).toEqual([
        r1.id,
        r12.id,
      ]);
      expect(await store.countTasks({ idPrefix: "pr-7-cycle-" })).toBe(2);
      expect(await ids({ idPrefix: "pr-8-cycle-" })).toEqual([]);
      expect(await ids({ branch: "feature/x" })).toEqual([r12.id, plain.id]);
      expect(await ids({ branch: "feature/x", idPrefix: "pr-7-" })).toEqual([r12.id]);
      // The `status --json` page reads the same tasks as the summaries.
      const page = await store.listTaskJson({ idPrefix: "pr-7-cycle-", limit: 10 });
      expect(page.count).toBe(2);
      const listed = JSON.parse(`[${Buffer.from(page.json).toString("utf8")}]`) as { id: string }[];
      expect(listed.map((o) => o.id)).toEqual([r1.id, r12.id]);
      expect((await store.listTaskJson({ branch: "feature/x", limit: 10 })).count).toBe(2);
    });
  });
}
