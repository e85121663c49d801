import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/domain/types.js";
import {
  counterPageKey,
  countersKey,
  loadRunState,
  PAGE_SIZE,
  SNAPSHOT_AFTER,
} from "../../src/engine/checkpoint.js";
import { toRecord } from "../../src/engine/counters.js";
import { initialRunState } from "../../src/engine/state.js";
import { approveAll } from "../helpers/agent-replies.js";
import { putCheckpoint } from "../helpers/checkpoint.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A pipeline of `n` no-op decision stages, then an exit. */
function chain(n: number): string {
  const lines = [`workflow "chain${n}" {`, `  start "s1"`];
  for (let i = 1; i <= n; i++) {
    lines.push(
      `  stage "s${i}" kind="decision" { route to="${i === n ? "done" : `s${i + 1}`}" when="true" }`,
    );
  }
  lines.push(`  stage "done" kind="exit"`, "}");
  return lines.join("\n");
}

async function harnessWith(...sizes: number[]): Promise<EngineHarness> {
  const harness = await createEngineHarness({
    agents: { implementer: approveAll(), reviewer: approveAll(), fixer: approveAll() },
  });
  const dir = join(harness.root, ".fixpoint", "workflows");
  mkdirSync(dir, { recursive: true });
  for (const n of sizes) writeFileSync(join(dir, `chain${n}.kdl`), chain(n));
  return harness;
}

describe("checkpoints", () => {
  it("stay the same size however many stages a run has visited", async () => {
    h = await harnessWith(10, 400);
    const harness = h;
    const small = await h.addTask({ workflow: "chain10" });
    const big = await h.addTask({ workflow: "chain400" });
    await h.runAll();
    const size = async (taskId: string) => {
      const [run] = await harness.runs(taskId);
      const cp = await harness.store.getCheckpoint(run?.id ?? -1);
      return JSON.stringify(cp?.state).length;
    };
    expect((await h.task(big.id)).finalVerdict).toBe("APPROVED");
    // The last checkpoint of a 400-stage run holds at most SNAPSHOT_AFTER counter entries.
    expect(await size(big.id)).toBeLessThan((await size(small.id)) + SNAPSHOT_AFTER * 40);
    // Loaded, it is the whole state: every one of the 400 stages counted once.
    const [run] = await h.runs(big.id);
    const loaded = await loadRunState(h.store, big.id, run?.id ?? -1);
    expect(Object.keys(toRecord(loaded?.state.visits ?? {})).filter((k) => k.startsWith("s"))).toHaveLength(
      400,
    );
    expect(Object.values(toRecord(loaded?.state.visits ?? {})).every((v) => v === 1)).toBe(true);
  });

  it("keep their counter snapshot in pages of PAGE_SIZE stages, in the order the run reached them", async () => {
    h = await harnessWith(400);
    const t = await h.addTask({ workflow: "chain400" });
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    const [run] = await h.runs(t.id);
    const runId = run?.id ?? -1;
    const cp = await h.store.getCheckpoint(runId);
    const ref = (cp?.state as { counters?: { gen: number; pages: number } } | undefined)?.counters;
    // 400 chain stages and the exit: 401 ids, 7 pages of 64.
    expect(ref?.pages).toBe(Math.ceil(401 / PAGE_SIZE));
    const seen: string[] = [];
    for (let page = 0; page < (ref?.pages ?? 0); page++) {
      const marker = (await h.store.getMarker(counterPageKey(t.id, runId, page))) as {
        gen: number;
        ids: string[];
        visits: (number | null)[];
        outcomes: (string | null)[];
      } | null;
      expect(marker).not.toBeNull();
      expect(marker?.gen).toBeLessThanOrEqual(ref?.gen ?? 0);
      // Columns: the counters of ids[i] at index i.
      expect(marker?.ids.length).toBeLessThanOrEqual(PAGE_SIZE);
      expect(marker?.visits).toHaveLength(marker?.ids.length ?? -1);
      expect(marker?.outcomes).toHaveLength(marker?.ids.length ?? -1);
      expect(marker?.visits.every((v) => v === 1)).toBe(true);
      seen.push(...(marker?.ids ?? []));
    }
    // A chain fills its pages in order: s1…s64 in page 0, and so on.
    expect(seen.slice(0, 3)).toEqual(["s1", "s2", "s3"]);
    expect(new Set(seen).size).toBeGreaterThanOrEqual(400 - SNAPSHOT_AFTER - 1);
  });

  it("refuse, naming the task and the page, a checkpoint whose snapshot page is missing", async () => {
    h = await harnessWith(10);
    const t = await h.addTask({ workflow: "chain10" });
    const run = await h.store.createRun(t.id, "start", {}, 1);
    await h.store.setMarker(counterPageKey(t.id, run.id, 0), { gen: 2, visits: { s1: 1 }, outcomes: {} }, 1);
    const state = { ...initialRunState("s3"), counters: { gen: 2, pages: 2 } } as unknown as JsonObject;
    await putCheckpoint(h.store, { taskId: t.id, runId: run.id }, state);
    await expect(loadRunState(h.store, t.id, run.id)).rejects.toMatchObject({
      code: "checkpoint",
      message: expect.stringMatching(new RegExp(`task ${t.id}.*page 1`)),
    });
  });

  it.each<{
    form: string;
    good: JsonObject;
    bad: JsonObject;
    stage: string;
    fixed: JsonObject;
    outcomes: Record<string, string>;
  }>([
    {
      form: "objects keyed by stage id (pages written before columns)",
      good: { gen: 2, visits: { s1: 1 }, outcomes: {} },
      bad: { gen: 2, visits: { s2: "twice" }, outcomes: {} },
      stage: "s2",
      fixed: { gen: 2, visits: { s2: 1 }, outcomes: {} },
      outcomes: {},
    },
    {
      form: "columns (the counters of ids[i] at index i, null for none)",
      good: { gen: 2, ids: ["s1"], visits: [1], outcomes: ["success"] },
      bad: { gen: 2, ids: ["s2", "s3"], visits: [1, "twice"], outcomes: [null, null] },
      stage: "s3",
      fixed: { gen: 2, ids: ["s2", "s3"], visits: [1, null], outcomes: [null, null] },
      outcomes: { s1: "success" },
    },
  ])(
    "refuse, naming the task, the page and the stage, a snapshot page of $form holding a count that is not a number",
    async (c) => {
      h = await harnessWith(10);
      const t = await h.addTask({ workflow: "chain10" });
      const run = await h.store.createRun(t.id, "start", {}, 1);
      await h.store.setMarker(counterPageKey(t.id, run.id, 0), c.good, 1);
      await h.store.setMarker(counterPageKey(t.id, run.id, 1), c.bad, 1);
      const state = { ...initialRunState("s3"), counters: { gen: 2, pages: 2 } } as unknown as JsonObject;
      await putCheckpoint(h.store, { taskId: t.id, runId: run.id }, state);
      await expect(loadRunState(h.store, t.id, run.id)).rejects.toMatchObject({
        code: "checkpoint",
        message: expect.stringMatching(
          new RegExp(
            `task ${t.id}: its checkpoint is corrupted \\(visits of counter page 1: ${c.stage} is not a number\\).*fixpoint retry ${t.id}`,
          ),
        ),
      });
      // Mended, the same pages load.
      await h.store.setMarker(counterPageKey(t.id, run.id, 1), c.fixed, 2);
      const loaded = await loadRunState(h.store, t.id, run.id);
      expect(toRecord(loaded?.state.visits ?? {})).toEqual({ s1: 1, s2: 1 });
      expect(toRecord(loaded?.state.outcomes ?? {})).toEqual(c.outcomes);
    },
  );

  it("loaded from pages, keep the checkpoint's own counts over the snapshot's", async () => {
    h = await harnessWith(10);
    const t = await h.addTask({ workflow: "chain10" });
    const run = await h.store.createRun(t.id, "start", {}, 1);
    const page = { gen: 2, visits: { s1: 1, s2: 1 }, outcomes: { s1: "success", s2: "success" } };
    await h.store.setMarker(counterPageKey(t.id, run.id, 0), page, 1);
    const state = {
      ...initialRunState("s3"),
      visits: { s2: 2, s3: 1 },
      outcomes: { s2: "fail" },
      counters: { gen: 2, pages: 1 },
    } as unknown as JsonObject;
    await putCheckpoint(h.store, { taskId: t.id, runId: run.id }, state);
    const loaded = await loadRunState(h.store, t.id, run.id);
    expect(toRecord(loaded?.state.visits ?? {})).toEqual({ s1: 1, s2: 2, s3: 1 });
    expect(toRecord(loaded?.state.outcomes ?? {})).toEqual({ s1: "success", s2: "fail" });
    expect([...(loaded?.log.changed ?? [])].sort()).toEqual(["s2", "s3"]);
    expect(loaded?.log.pages).toEqual([["s1", "s2"]]);
  });

  it("written with the single snapshot marker of earlier versions load and continue in pages", async () => {
    h = await harnessWith(10);
    const t = await h.addTask({ workflow: "chain10" });
    const run = await h.store.createRun(t.id, "start", {}, 1);
    const counted = { s1: 1, s2: 1, s3: 1 };
    const done = { s1: "success", s2: "success", s3: "success" };
    await h.store.setMarker(countersKey(t.id, run.id), { gen: 3, visits: counted, outcomes: done }, 1);
    const state = {
      ...initialRunState("s5"),
      visits: { s4: 1 },
      outcomes: { s4: "success" },
      counters: { gen: 3 },
    } as unknown as JsonObject;
    await putCheckpoint(h.store, { taskId: t.id, runId: run.id }, state);
    const before = await loadRunState(h.store, t.id, run.id);
    expect(toRecord(before?.state.visits ?? {})).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1 });
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    expect(await h.runs(t.id)).toHaveLength(1);
    expect((await h.stages(t.id)).map((s) => s.stageId)[0]).toBe("s5");
    const end = await loadRunState(h.store, t.id, run.id);
    const visits = toRecord(end?.state.visits ?? {});
    expect(Object.keys(visits).sort()).toEqual(
      ["done", ...Array.from({ length: 10 }, (_, i) => `s${i + 1}`)].sort(),
    );
    expect(Object.values(visits).every((v) => v === 1)).toBe(true);
    const cp = await h.store.getCheckpoint(run.id);
    expect((cp?.state as { counters?: { pages?: number } } | undefined)?.counters?.pages).toBe(1);
  });

  it("resume a run interrupted between snapshots with every counter intact", async () => {
    h = await harnessWith(300);
    const harness = h;
    const t = await h.addTask({ workflow: "chain300" });
    const controller = new AbortController();
    harness.listen((e) => {
      if (e.type === "stage.finished" && e.stageId === `s${SNAPSHOT_AFTER * 2 + 7}`)
        controller.abort("SIGINT");
    });
    await h.runAll({ signal: controller.signal });
    const [run] = await h.runs(t.id);
    expect(run?.status).toBe("interrupted");
    const mid = await loadRunState(h.store, t.id, run?.id ?? -1);
    expect(Object.keys(toRecord(mid?.state.visits ?? {})).length).toBeGreaterThan(SNAPSHOT_AFTER * 2);

    await h.store.updateTask(t.id, { status: "queued" }, Date.now());
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    const end = await loadRunState(h.store, t.id, run?.id ?? -1);
    // No stage ran twice and none was forgotten across the resume.
    expect(Object.values(toRecord(end?.state.visits ?? {})).every((v) => v === 1)).toBe(true);
    expect(Object.keys(toRecord(end?.state.visits ?? {}))).toHaveLength(301);
    expect(await h.runs(t.id)).toHaveLength(1);
  });

  it("refuse, naming the task, a checkpoint whose counter snapshot is missing", async () => {
    h = await harnessWith(10);
    const t = await h.addTask({ workflow: "chain10" });
    const run = await h.store.createRun(t.id, "start", {}, 1);
    const state = { ...initialRunState("s3"), counters: { gen: 4 } } as unknown as JsonObject;
    await putCheckpoint(h.store, { taskId: t.id, runId: run.id }, state);
    expect(await h.store.getMarker(countersKey(t.id, run.id))).toBeNull();
    await expect(loadRunState(h.store, t.id, run.id)).rejects.toMatchObject({
      code: "checkpoint",
      message: expect.stringContaining(`task ${t.id}`),
    });
  });

  it("of version 1 (a whole state in every row) still load and continue", async () => {
    h = await harnessWith(10);
    const t = await h.addTask({ workflow: "chain10" });
    const run = await h.store.createRun(t.id, "start", {}, 1);
    // Stored flat, as version 1 wrote it.
    const v1 = {
      ...initialRunState("s4"),
      version: 1,
      visits: { s1: 1, s2: 1, s3: 1 },
      outcomes: { s1: "success", s2: "success", s3: "success" },
    };
    await putCheckpoint(h.store, { taskId: t.id, runId: run.id }, v1 as unknown as JsonObject);
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    expect(await h.runs(t.id)).toHaveLength(1);
    const end = await loadRunState(h.store, t.id, run.id);
    expect(toRecord(end?.state.visits ?? {})).toMatchObject({ s1: 1, s3: 1, s4: 1, s10: 1 });
    // s1–s3 were done before: the run went on at s4.
    expect((await h.stages(t.id)).map((s) => s.stageId)[0]).toBe("s4");
  });
});
