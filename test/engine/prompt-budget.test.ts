import { afterEach, describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { finding, fixEverything, implementFeature, reviewReply } from "../helpers/agent-replies.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Raises 300 distinct P2 findings with long bodies on one file once, then approves and answers nothing. */
function floodingReviewer(): ScriptHandler {
  let calls = 0;
  return () => {
    calls += 1;
    if (calls > 1) return reviewReply("APPROVED");
    const found = Array.from({ length: 300 }, (_, i) => ({
      ...finding("P2", `Problem number ${i} in the request handler`, { line_start: i * 40 + 1 }),
      file: "src/app.js",
      body: `Detailed explanation of problem ${i}. `.repeat(20),
    }));
    return reviewReply("CHANGES_REQUESTED", found);
  };
}

const BUDGET = 24 * 1024;
const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** One review cycle against the flooding reviewer, blocking at P2, with a 24 KiB prompt budget. */
async function floodedHarness(): Promise<EngineHarness> {
  const harness = await createEngineHarness({
    maxCycles: 1,
    blockingSeverity: "P2",
    agents: { implementer: implementFeature(), reviewer: floodingReviewer(), fixer: fixEverything() },
  });
  harness.deps.config.defaults.promptBudget = BUDGET;
  return harness;
}

describe("prompt budget (issue 10)", () => {
  it("keeps fixer and reviewer prompts within `prompt-budget` and names what was left out", async () => {
    h = await floodedHarness();
    const t = await h.addTask();
    const summary = await h.runAll();
    expect(summary.errors).toEqual([]);

    const fix = h.callsOf("fixer")[0];
    expect(fix).toBeDefined();
    expect(bytes(fix?.prompt ?? "")).toBeLessThanOrEqual(24 * 1024);
    expect(fix?.prompt).toMatch(/Left out to fit the prompt budget: \d+ P2 findings/);
    expect(fix?.prompt).toContain(`\`fixpoint findings ${t.id}\` lists them all`);
    const secondReview = h.callsOf("reviewer").find((c) => c.cycle === 1);
    expect(bytes(secondReview?.prompt ?? "")).toBeLessThanOrEqual(24 * 1024);
    expect(secondReview?.prompt).toMatch(/Not listed, to fit the prompt budget: \d+ P2 findings/);

    // Findings the fixer never saw are not held against it as "no report".
    const findings = await h.registry(t.id);
    const shown = new Set([...(fix?.prompt ?? "").matchAll(/^#### (F-\d+) ·/gm)].map((m) => m[1]));
    expect(shown.size).toBeGreaterThan(0);
    expect(shown.size).toBeLessThan(300);
    for (const f of findings.filter((x) => !shown.has(x.id))) {
      expect(f.attempts.some((a) => a.status === "no_report")).toBe(false);
    }
  });

  it("learnings take at most an eighth of the budget; the ones that do not fit are named by count", async () => {
    h = await floodedHarness();
    const t = await h.addTask();
    for (let i = 0; i < 60; i++) {
      await h.store.addLearning({
        repo: t.repo,
        text: `Learning ${i}: ${"the request handler validates its input before it reaches this code. ".repeat(6)}`,
        scope: null,
        source: { kind: "person" },
        origin: null,
        createdAt: i,
        createdBy: "alice",
      });
    }
    const summary = await h.runAll();
    expect(summary.errors).toEqual([]);
    const reviews = h.callsOf("reviewer");
    expect(reviews.length).toBeGreaterThan(0);
    for (const r of reviews) {
      const prompt = r.prompt;
      expect(bytes(prompt)).toBeLessThanOrEqual(24 * 1024);
      const section = prompt.slice(prompt.indexOf("# Learnings"), prompt.indexOf("# Your focus"));
      expect(bytes(section)).toBeLessThanOrEqual((24 * 1024) / 8 + 64);
      const shown = [...section.matchAll(/^L-\d+ \(whole repository\)/gm)].length;
      expect(shown).toBeGreaterThan(0);
      expect(section).toContain(`${60 - shown} more learnings left out to stay within the prompt budget`);
    }
  });
});
