import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { approveAll, fixEverything } from "../helpers/agent-replies.js";
import { harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/** Writes 30 new modules of about 3 KB each: a diff of about 100 KB. */
function bigChange(): ScriptHandler {
  return (req) => {
    mkdirSync(join(req.cwd, "src/gen"), { recursive: true });
    for (let i = 0; i < 30; i++) {
      const body = Array.from(
        { length: 60 },
        (_, k) => `export const value_${i}_${k} = ${i * k}; // generated`,
      );
      writeFileSync(join(req.cwd, `src/gen/m${String(i).padStart(2, "0")}.js`), `${body.join("\n")}\n`);
    }
    return { text: "Generated the modules." };
  };
}

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("the diff inside the prompt budget (issue 10)", () => {
  it("cuts a large diff at file boundaries within prompt-budget, the same bytes for every reviewer of the cycle", async () => {
    const h = await harness({
      maxCycles: 1,
      agents: { implementer: bigChange(), reviewer: approveAll(), fixer: fixEverything() },
    });
    h.deps.config.defaults.promptBudget = 24 * 1024;
    const t = await h.addTask();
    await h.runAll();

    const reviews = h.callsOf("reviewer");
    expect(reviews).toHaveLength(3);
    const changes = reviews.map((c) => {
      expect(bytes(c.prompt)).toBeLessThanOrEqual(24 * 1024);
      expect(c.prompt).toMatch(
        /diff cut to fit the prompt budget: \d+ of 30 files shown as a stat line only/,
      );
      expect(c.prompt).toContain(`\`fixpoint diff ${t.id}\` shows the whole diff`);
      expect(c.prompt).toMatch(/src\/gen\/m\d\d\.js \| \+60 -0 lines/);
      const start = c.prompt.indexOf("# The change");
      return c.prompt.slice(start, c.prompt.indexOf("# Earlier findings", start));
    });
    expect(new Set(changes).size).toBe(1);
    // Whole files still come first in git's order: m00 is shown in full or summarised in place.
    expect(changes[0]).toMatch(/src\/gen\/m00\.js/);
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
  });

  it("a prompt-budget too small for the review's own instructions fails the review with a message naming the key", async () => {
    const h = await harness({
      maxCycles: 1,
      agents: { implementer: bigChange(), reviewer: approveAll(), fixer: fixEverything() },
    });
    h.deps.config.defaults.promptBudget = 2048;
    const t = await h.addTask();
    await h.runAll();

    expect(h.callsOf("reviewer")).toHaveLength(0);
    const reviews = (await h.stages(t.id)).filter((s) => s.kind === "review");
    expect(reviews.length).toBeGreaterThan(0);
    for (const r of reviews) {
      expect(r.failureReason).toMatch(
        /defaults prompt-budget of 2048 bytes is too small for a review prompt/,
      );
      expect(r.failureReason).toContain("raise `defaults prompt-budget`");
    }
    expect((await h.task(t.id)).finalVerdict).not.toBe("APPROVED");
  });
});
