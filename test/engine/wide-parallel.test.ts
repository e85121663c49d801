import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/domain/types.js";
import { encodeCheckpoint, loadRunState, newCounterLog } from "../../src/engine/checkpoint.js";
import { pendingMarkerKey } from "../../src/engine/pending-markers.js";
import { initialRunState, type PendingChild, type RunState } from "../../src/engine/state.js";
import { approveAll } from "../helpers/agent-replies.js";
import { putCheckpoint } from "../helpers/checkpoint.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(): Promise<EngineHarness> {
  h = await createEngineHarness({
    agents: { implementer: approveAll(), reviewer: approveAll(), fixer: approveAll() },
  });
  return h;
}

/** A finished child as a parallel block holds it until the merge: a review's whole output. */
function child(i: number): PendingChild {
  return {
    outcome: "success",
    verdict: "APPROVED",
    effect: {
      type: "review",
      stageId: `c${i}`,
      output: {
        verdict: "APPROVED",
        summary: `reviewer ${i}: ${"looked at every line. ".repeat(100)}`,
        findings: [],
        prior: [],
      },
      expectedIds: [],
      head: null,
    },
    sessionId: `s-${i}`,
    agent: "reviewer",
    summary: `reviewer ${i} approves`,
    failureReason: null,
  };
}

describe("a parallel block's finished children", () => {
  it("are written once each, beside a checkpoint that stays the same size; loading gives every one back in order", async () => {
    const hx = await harness();
    const t = await hx.addTask();
    const run = await hx.store.createRun(t.id, "start", {}, 1);
    const where = { taskId: t.id, runId: run.id };
    const state = initialRunState("wide");
    const log = newCounterLog();
    const sizes: number[] = [];
    for (let i = 0; i < 120; i++) {
      state.pending[`c${i}`] = child(i);
      const write = encodeCheckpoint(state, log, [`c${i}`], where);
      // Each record carries its own child's entry, and only that one.
      expect(write.markers.map((m) => m.key)).toEqual([pendingMarkerKey(t.id, run.id, i)]);
      sizes.push(JSON.stringify(write.state).length);
      await hx.store.commitStage({
        ...where,
        stage: null,
        checkpoint: { state: write.state },
        // As recordStage writes them: the child's entry and, when due, the counter pages.
        markers: [...write.markers, ...(write.snapshot ?? [])],
        findings: [],
        events: [],
        task: null,
        now: 2 + i,
      });
    }
    // Before: the 120th checkpoint held all 120 outputs, 2.4 KB each.
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(64);
    const loaded = await loadRunState(hx.store, t.id, run.id);
    expect(Object.keys(loaded?.state.pending ?? {})).toEqual(Array.from({ length: 120 }, (_, i) => `c${i}`));
    expect(loaded?.state.pending.c77).toEqual(child(77));

    // The next child of the resumed block is written after them, not over one of them.
    const resumed = loaded?.state ?? state;
    resumed.pending.c120 = child(120);
    const next = encodeCheckpoint(resumed, loaded?.log ?? newCounterLog(), ["c120"], where);
    expect(next.markers.map((m) => m.key)).toEqual([pendingMarkerKey(t.id, run.id, 120)]);
    expect(next.state.pendingCount).toBe(121);
  });

  it("held inline by an older checkpoint are all written as markers with the next child's record", async () => {
    const hx = await harness();
    const t = await hx.addTask();
    const run = await hx.store.createRun(t.id, "start", {}, 1);
    const old: RunState = { ...initialRunState("wide"), pending: { c0: child(0), c1: child(1) } };
    await putCheckpoint(hx.store, { taskId: t.id, runId: run.id }, old as unknown as JsonObject);
    const loaded = await loadRunState(hx.store, t.id, run.id);
    const state = loaded?.state ?? old;
    state.pending.c2 = child(2);
    const write = encodeCheckpoint(state, loaded?.log ?? newCounterLog(), ["c2"], {
      taskId: t.id,
      runId: run.id,
    });
    expect(write.markers.map((m) => (m.value as { child: string }).child)).toEqual(["c0", "c1", "c2"]);
    expect(write.state.pending).toEqual({});
  });

  it("of the next block start over at the first marker, even with no empty checkpoint between", () => {
    const log = newCounterLog();
    const where = { taskId: "t-1", runId: 1 };
    const first: RunState = { ...initialRunState("wide"), pending: { c0: child(0) } };
    encodeCheckpoint(first, log, ["c0"], where);
    first.pending.c1 = child(1);
    expect(encodeCheckpoint(first, log, ["c1"], where).state.pendingCount).toBe(2);
    // The block merged (its pending emptied), and the next one's first child is recorded.
    const next = { ...first, pending: { c0: child(10) } };
    const write = encodeCheckpoint(next, log, ["c0"], where);
    expect(write.markers.map((m) => m.key)).toEqual([pendingMarkerKey("t-1", 1, 0)]);
    expect((write.markers[0]?.value as { summary?: string } | undefined)?.summary).toBe(
      "reviewer 10 approves",
    );
    expect(write.state.pendingCount).toBe(1);
    const done = encodeCheckpoint({ ...next, pending: {} }, log, ["wide"], where);
    expect(done.state.pendingCount).toBe(0);
    expect(done.markers).toEqual([]);
  });

  it("refuse, naming the task, a checkpoint whose child marker is missing", async () => {
    const hx = await harness();
    const t = await hx.addTask();
    const run = await hx.store.createRun(t.id, "start", {}, 1);
    const state = { ...initialRunState("wide"), counters: { gen: 1, pages: 0 }, pendingCount: 2 };
    await hx.store.setMarker(pendingMarkerKey(t.id, run.id, 0), { child: "c0", ...child(0) } as never, 1);
    await putCheckpoint(hx.store, { taskId: t.id, runId: run.id }, state as unknown as JsonObject);
    await expect(loadRunState(hx.store, t.id, run.id)).rejects.toMatchObject({
      code: "checkpoint",
      message: expect.stringMatching(new RegExp(`task ${t.id}.*pending child 1`)),
    });
  });

  it("of a block of 60 reviewers each run once, and the review file holds their 60 sections in order", async () => {
    const hx = await harness();
    const reviewers = Array.from({ length: 60 }, (_, i) => `r${i}`);
    const dir = join(hx.root, ".fixpoint", "workflows");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "wide.kdl"),
      [
        'workflow "wide" {',
        '  start "reviews"',
        '  parallel "reviews" max=7 {',
        ...reviewers.map((r) => `    stage "${r}" kind="review" agent="reviewer" prompt="review-code"`),
        "  }",
        '  stage "done" kind="exit"',
        '  transition from="reviews" to="done"',
        "}",
      ].join("\n"),
    );
    const t = await hx.addTask({ workflow: "wide" });
    await hx.runAll();
    expect((await hx.task(t.id)).status).toBe("completed");
    const ran = hx.callsOf("reviewer", { taskId: t.id }).map((c) => c.stageId);
    expect([...ran].sort()).toEqual([...reviewers].sort());
    const [run] = await hx.runs(t.id);
    const file = readFileSync(
      join(hx.root, ".fixpoint", "reviews", `${t.id}-r${run?.id}-review-0.md`),
      "utf8",
    );
    expect([...file.matchAll(/<!-- stage:(r\d+) -->/g)].map((m) => m[1])).toEqual(reviewers);
  });
});
