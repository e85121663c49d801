import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { answerAll, byStage, finding, fixEverything, reviewReply } from "../helpers/agent-replies.js";
import { type AgentCall, createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const common = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/** Writes a multi-file change so the diff has files before and after the one the fixer edits. */
const implementSeveral: ScriptHandler = (req) => {
  for (const name of ["a", "b", "c", "d"]) {
    const body = Array.from({ length: 30 }, (_, i) => `export const ${name}${i} = ${i};`).join("\n");
    writeFileSync(join(req.cwd, `src/${name}.js`), `${body}\n`);
  }
  return { text: "done" };
};

/** Cycle 0: review_code finds one problem in src/b.js; afterwards everyone approves. */
const reviewer = byStage(
  {
    review_code: (req) =>
      req.cycle === 0
        ? reviewReply("CHANGES_REQUESTED", [
            finding("P1", "b0 is wrong", { file: "src/b.js", line_start: 1 }),
          ])
        : reviewReply("APPROVED", [], answerAll(req.prompt, "resolved", "checked")),
  },
  (req) => reviewReply("APPROVED", [], answerAll(req.prompt, "resolved", "checked")),
);

const fixB: ScriptHandler = (req, ctx) => {
  writeFileSync(join(req.cwd, "src/b.js"), "export const b0 = 42;\n");
  return fixEverything()(req, ctx);
};

function reviewsByCycle(calls: AgentCall[]): Map<number, AgentCall[]> {
  const out = new Map<number, AgentCall[]>();
  for (const c of calls) out.set(c.cycle, [...(out.get(c.cycle) ?? []), c]);
  return out;
}

describe("prompt layout for the provider's cache", () => {
  it("gives every reviewer of a cycle the same bytes up to its focus, with nothing volatile before", async () => {
    h = await createEngineHarness({
      agents: { implementer: implementSeveral, reviewer, fixer: fixB },
    });
    const t = await h.addTask();
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    const cycles = reviewsByCycle(h.callsOf("reviewer"));
    expect([...cycles.keys()]).toEqual([0, 1]);
    for (const [cycle, calls] of cycles) {
      expect(calls).toHaveLength(3);
      const breaks = calls.map((c) => c.req.cacheBreaks ?? []);
      for (const b of breaks) expect(b).toHaveLength(1);
      const cut = breaks[0]?.[0] ?? 0;
      const shared = calls.map((c) => c.prompt.slice(0, c.req.cacheBreaks?.[0]));
      // Byte-identical shared parts, and the break is where they stop being identical.
      expect(new Set(shared).size).toBe(1);
      expect(shared[0]).toContain("# The change");
      expect(shared[0]).toContain("# Earlier findings");
      expect(calls[0]?.prompt.slice(cut)).toMatch(/^# Your focus/);
      // Nothing naming the cycle or the stage comes before the break (the earlier findings quote
      // their own history, the same for every reviewer of the cycle).
      const beforeFindings = shared[0]?.slice(0, shared[0].indexOf("# Earlier findings")) ?? "";
      expect(beforeFindings).not.toMatch(/cycle \d|review_code|review_security|review_tests/);
      for (const c of calls)
        expect(c.prompt.slice(cut)).toContain(`Review cycle ${cycle}, stage \`${c.stageId}\``);
      // The later reviewers share at least 90 % of their prompt with the first.
      for (const later of calls.slice(1)) {
        expect(common(later.prompt, calls[0]?.prompt ?? "") / later.prompt.length).toBeGreaterThanOrEqual(
          0.9,
        );
      }
    }
  });

  it("repeats the earlier cycle's bytes up to the first line the fix changed", async () => {
    h = await createEngineHarness({
      agents: { implementer: implementSeveral, reviewer, fixer: fixB },
    });
    await h.addTask();
    await h.runAll();
    const cycles = reviewsByCycle(h.callsOf("reviewer"));
    const first = cycles.get(0)?.find((c) => c.stageId === "review_code")?.prompt ?? "";
    const second = cycles.get(1)?.find((c) => c.stageId === "review_code")?.prompt ?? "";
    // The fixer touched src/app.js and src/b.js; in git's order only src/a.js comes before them.
    const firstChange = first.indexOf("diff --git a/src/b.js");
    expect(firstChange).toBeGreaterThan(first.indexOf("diff --git a/src/a.js"));
    expect(common(first, second)).toBeGreaterThan(firstChange);
    // The fixed file is still shown whole, and so is what changed since.
    expect(second).toContain("export const b0 = 42;");
    expect(second).toContain("changes since the last review");
  });

  it("puts the fix cycle after the findings, and the stable instructions first", async () => {
    h = await createEngineHarness({
      agents: { implementer: implementSeveral, reviewer, fixer: fixB },
    });
    await h.addTask();
    await h.runAll();
    const [fix] = h.callsOf("fixer");
    const prompt = fix?.prompt ?? "";
    const cut = fix?.req.cacheBreaks?.[0] ?? -1;
    expect(cut).toBeGreaterThan(0);
    expect(prompt.slice(0, cut)).not.toMatch(/cycle \d/);
    const listed = prompt.search(/^#{3,4} F-1 /m);
    expect(listed).toBeGreaterThan(cut);
    expect(prompt.indexOf("This is fix cycle 1.")).toBeGreaterThan(listed);
  });
});
