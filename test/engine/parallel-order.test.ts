import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { seededRandom } from "../../src/util/seeded-random.js";
import { finding, fixEverything, implementFeature, reviewReply } from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

const REVIEWERS = ["review_code", "review_security", "review_tests"] as const;
const TITLE: Record<string, string> = {
  review_code: "greet() builds the string twice",
  review_security: "double() trusts its caller blindly",
  review_tests: "The tests print instead of asserting",
};

describe("a parallel stage merges in declaration order", () => {
  it("ids F-1..F-3 and artifact sections follow declaration order, whatever order the reviewers finish in", async () => {
    const random = seededRandom(20240611);
    // The first two runs hold every reviewer until all three have started, then let them finish
    // in a chosen order (reversed, rotated); the other runs finish after random 0–50 ms delays.
    const forced: Record<string, number[]> = { "t-1": [2, 1, 0], "t-2": [1, 2, 0] };
    const held: Record<string, Map<number, () => void>> = {};
    const finished: Record<string, string[]> = {};
    const release = async (order: number[], waiting: Map<number, () => void>) => {
      for (const i of order) {
        waiting.get(i)?.();
        await new Promise((r) => setTimeout(r, 15));
      }
    };
    const reviewer: ScriptHandler = async (req) => {
      const i = REVIEWERS.indexOf(req.stageId as (typeof REVIEWERS)[number]);
      const order = forced[req.taskId];
      if (order) {
        const waiting = held[req.taskId] ?? new Map<number, () => void>();
        held[req.taskId] = waiting;
        const mine = new Promise<void>((r) => waiting.set(i, r));
        if (waiting.size === REVIEWERS.length) void release(order, waiting);
        await mine;
      } else {
        await new Promise((r) => setTimeout(r, Math.floor(random() * 50)));
      }
      finished[req.taskId] = [...(finished[req.taskId] ?? []), req.stageId];
      // P2: non-blocking, so each task is approved after its first review.
      return reviewReply("APPROVED", [
        finding("P2", TITLE[req.stageId] ?? req.stageId, { line_start: 1 + i * 30 }),
      ]);
    };
    const h = await harness({
      agents: { implementer: implementFeature(), reviewer, fixer: fixEverything() },
    });
    const tasks = [];
    for (let n = 0; n < 5; n++) tasks.push(await h.addTask({ title: `Run ${n + 1}` }));
    await h.runAll();

    const orders = new Set(Object.values(finished).map((o) => o.join(",")));
    expect(orders.size, "the reviewers must finish in different orders across runs").toBeGreaterThan(1);
    expect(finished["t-1"]).toEqual(["review_tests", "review_security", "review_code"]);
    expect(finished["t-2"]).toEqual(["review_security", "review_tests", "review_code"]);
    for (const t of tasks) {
      const findings = await h.registry(t.id);
      expect(
        findings.map((f) => [f.id, f.sources[0]?.source]),
        t.id,
      ).toEqual([
        ["F-1", "review:review_code"],
        ["F-2", "review:review_security"],
        ["F-3", "review:review_tests"],
      ]);
      const artifact = readFileSync(await h.reviewArtifact(t.id, 0), "utf8");
      const at = REVIEWERS.map((r) => artifact.indexOf(`## ${r}`));
      expect(at.every((p) => p >= 0)).toBe(true);
      expect(
        [...at].sort((a, b) => a - b),
        t.id,
      ).toEqual(at);
      expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    }
  });
});
