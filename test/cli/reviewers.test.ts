import { afterEach, describe, expect, it } from "vitest";
import type { ScriptHandler } from "../../src/agents/scripted.js";
import { byStage, finding, fixEverything, implementFeature, reviewReply } from "../helpers/agent-replies.js";
import { runCli } from "../helpers/cli.js";
import { createEngineHarness, type EngineHarness } from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const A = finding("P1", "parse() drops the last line", { file: "src/feature.js", line_start: 1 });
const B = finding("P1", "double() overflows on large input", { file: "src/feature.js", line_start: 20 });
const C = finding("P2", "no test covers double()", { file: "test/app.test.js", line_start: 1 });

/** Cycle 0: the scripted findings; cycle 1: A and B resolved, C still open, everyone approves. */
function reviewer(cost: number, found: ReturnType<typeof finding>[]): ScriptHandler {
  return (req) => {
    const extra = { costUsd: cost, usage: { input: 1000, output: 100 } };
    if (req.cycle === 0)
      return reviewReply(found.length ? "CHANGES_REQUESTED" : "APPROVED", found, [], extra);
    const prior = [
      { id: "F-1", status: "resolved" as const },
      { id: "F-2", status: "resolved" as const },
      { id: "F-3", status: "still_open" as const, note: "still no test" },
    ];
    return reviewReply("APPROVED", [], prior, extra);
  };
}

describe("fixpoint reviewers", () => {
  it("matches a hand count of a scripted loop, and `show` carries the same per task", async () => {
    h = await createEngineHarness({
      maxCycles: 2,
      agents: {
        implementer: implementFeature(),
        reviewer: byStage({
          review_code: reviewer(0.03, [A, B]),
          review_security: reviewer(0.02, [A]),
          review_tests: reviewer(0.01, [C]),
        }),
        fixer: fixEverything(),
      },
    });
    const t = await h.addTask();
    await h.runAll();
    expect((await h.task(t.id)).finalVerdict).toMatch(/^APPROVED/);

    const r = runCli(["reviewers", "--json"], { cwd: h.root, env: h.env });
    expect(r.code, r.stderr).toBe(0);
    // By hand: two review cycles, each reviewer ran twice.
    // review_code raised A (F-1) and B (F-2), both fixed and then resolved: 2 confirmed, $0.06.
    // review_security raised A again, after review_code: a duplicate, $0.04, nothing confirmed.
    // review_tests raised C (F-3, P2), fixed but still open in the next review: open, $0.02.
    const base = { agent: "reviewer", model: null, refuted: 0, dismissed: 0 };
    const expected = [
      {
        reviewer: "review_code",
        ...base,
        raised: 2,
        confirmed: 2,
        duplicates: 0,
        open: 0,
        cost_usd: 0.06,
        cost_per_confirmed_usd: 0.03,
      },
      {
        reviewer: "review_security",
        ...base,
        raised: 1,
        confirmed: 0,
        duplicates: 1,
        open: 0,
        cost_usd: 0.04,
        cost_per_confirmed_usd: null,
      },
      {
        reviewer: "review_tests",
        ...base,
        raised: 1,
        confirmed: 0,
        duplicates: 0,
        open: 1,
        cost_usd: 0.02,
        cost_per_confirmed_usd: null,
      },
    ];
    expect(JSON.parse(r.stdout)).toEqual(expected);

    const show = runCli(["show", t.id, "--json"], { cwd: h.root, env: h.env });
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).reviewers).toEqual(expected);

    const table = runCli(["reviewers"], { cwd: h.root, env: h.env });
    expect(table.stdout).toMatch(/review_code +reviewer +- +2 +2 +0 +0 +0 +0 +\$0\.0600 +\$0\.0300/);
  });

  it("refuses a --since that is neither a date nor a duration (exit 2)", async () => {
    h = await createEngineHarness({
      agents: { implementer: implementFeature(), reviewer: byStage({}), fixer: fixEverything() },
    });
    const bad = runCli(["reviewers", "--since", "last tuesday"], { cwd: h.root, env: h.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since: not a date or a duration: last tuesday");
    const future = runCli(["reviewers", "--since", "2099-01-01", "--json"], { cwd: h.root, env: h.env });
    expect(future.code).toBe(0);
    expect(JSON.parse(future.stdout)).toEqual([]);
  });
});
