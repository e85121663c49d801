import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { benchBreadth } from "../../bench/breadth.js";
import { benchChains } from "../../bench/chain.js";
import { benchClean } from "../../bench/clean.js";
import { benchCliChains } from "../../bench/cli-chain.js";
import { benchDedup } from "../../bench/dedup.js";
import { benchHostileText } from "../../bench/hostile.js";
import { benchPgStatus } from "../../bench/pg-status.js";
import { benchPromptBytes } from "../../bench/prompt-bytes.js";
import { benchPromptCache } from "../../bench/prompt-cache.js";
import { benchRegistry } from "../../bench/registry.js";
import { renderReport } from "../../bench/report.js";
import { benchResume } from "../../bench/resume.js";
import { benchSpawn } from "../../bench/spawn.js";
import { benchStatus } from "../../bench/status.js";
import type { BenchResult } from "../../bench/util.js";
import { benchWorkCycles } from "../../bench/work-cycles.js";
import { benchWorkflowSize } from "../../bench/workflow-size.js";
import { benchWorktreeAdd } from "../../bench/worktree-add.js";

/**
 * The issue 10 benchmarks at tiny sizes: they run end to end and produce their table. No timing
 * is asserted here (CI machines vary); `npm run bench` measures at full size.
 */
describe("benchmarks at smoke-test sizes", () => {
  it("chain, CLI chain, resume, registry, work, spawn, prompt, status, workflow, dedup, hostile-text and breadth benchmarks each produce a row per size in the report", async () => {
    expect(existsSync(fileURLToPath(new URL("../../dist/bin/fixpoint.js", import.meta.url)))).toBe(true);
    const results: BenchResult[] = [
      ...(await benchChains([3, 5])),
      ...(await benchCliChains([4], 1)),
      ...(await benchResume([3, 6], 1)),
      ...(await benchRegistry([50, 120])),
      ...(await benchWorkCycles([30])),
      ...(await benchSpawn([0, 20], 6)),
      ...(await benchPromptBytes(200)),
      ...(await benchStatus([20])),
      // Far enough apart that the first step's time always grows (at 20 → 40 it once shrank).
      ...(await benchWorkflowSize([50, 200, 400])),
      ...(await benchDedup([100, 300], [100, 200])),
      ...(await benchHostileText([650, 6_554], 1)),
      ...(await benchBreadth(0.01)),
    ];
    const report = renderReport(results, { date: "2026-01-01", machine: "test machine" });
    const rows = report.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| what"));
    // Chains: a ratio row per size and kind, the growth, checkpoint-load and decomposition rows
    // of the no-op chain (the marginal cost rows need sizes at least 50 stages apart).
    // Work: a row per size. Status: the JSON and the table, each through a pipe and to a file, then
    // `reviewers` and `clean --dry-run`.
    // Workflows: a row per size and the growth row.
    // CLI chains: a row per size and kind (no-op, edit, ignored folder). Spawn: a row per size and the growth row.
    // Resume: one row. Dedup: the budget row, a row per size without a file and their growth, a
    // row per size of one file's registry with lines and without, and their growth. Hostile text: the slowest read
    // and the growth. Breadth: one growth row per case.
    expect(rows).toHaveLength(4 + 1 + 1 + 1 + 3 + 2 + 1 + 1 + 3 + 6 + 4 + 1 + 4 + 6 + 2 + 7);
    expect(report).toContain("Machine: test machine.");
    expect(report).toContain("time per finding added to one file without lines, 200 ÷ 100 findings");
    expect(report).toContain("slowest read of a hostile text of 6,554 characters");
    expect(report).toContain("time per character reading a hostile text, 6,554 ÷ 650 characters");
    expect(report).toContain("time per unit, one line of an agent's output, 419,430 ÷ 41,943 bytes");
    expect(report).toContain("time per unit, a PR's unresolved threads judged, 200 ÷ 20 threads");
    expect(report).toContain(
      "time per unit, children of one parallel block, through the worker, 30 ÷ 3 children",
    );
    for (const n of [3, 5]) {
      expect(report).toContain(`chain of ${n} no-op stages, fixpoint ÷ floor`);
      expect(report).toContain(`chain of ${n} stages that each edit a file`);
    }
    expect(report).not.toContain("marginal cost per stage");
    expect(report).toContain(
      "through `fixpoint work` (the CLI), chain of 4 stages with a command agent that does nothing",
    );
    expect(report).toContain(
      "through `fixpoint work` (the CLI), chain of 4 stages with a command agent that appends a line",
    );
    expect(report).toContain(
      "chain of 4 stages with a command agent that does nothing (`sh`) in a project with an ignored",
    );
    // The no-op chain is also set beside a floor that writes each stage's transcript file.
    expect(report).toMatch(
      /the floor also writing each stage's transcript file, as fixpoint did until it wrote them at the run's end: \d+\.\d+ ms/,
    );
    expect(report).toContain("per-stage time at the end ÷ start of a 5-stage no-op chain");
    expect(report).toMatch(
      /loading the checkpoint of a 5-stage no-op chain ÷ of a 3-stage one \| \*\*\d+\.\d+ ×\*\* .* \d+\.\d+ ms at 3 stages, \d+\.\d+ ms at 5/,
    );
    // A row only reported has no target: it is neither "met" nor "NOT met".
    expect(rows.find((l) => l.includes("loading the checkpoint"))).toContain("| report | — |");
    // The largest size up to 1,000 stages: here 5.
    expect(report).toContain("chain of 5 no-op stages, stage record and saved reply not written, ÷ floor");
    expect(report).toMatch(
      /resuming a run through `fixpoint work` after 6 stages ÷ after 3, whole process \| \*\*\d+\.\d+ ×\*\* .* \d+ ms after 6 no-op stages, \d+ ms after 3 .* workflow cache removed first: \d+ ms/,
    );
    expect(report).toMatch(/registry work \(CPU\) in one fix cycle, \d+ findings/);
    // 30 raised by the code reviewer, and one for each of the two others: they request changes
    // without naming any, which the registry files as a finding of its own.
    expect(report).toContain("own time per fix cycle through `fixpoint work`, 32 findings in the registry");
    expect(report).toContain(
      "starting a child process, process holding 20 ÷ 0 MiB more, through the spawner",
    );
    expect(report).toContain("fix prompt at cycle 10 ÷ cycle 2, 200 resolved findings");
    expect(report).toContain("`fixpoint status --json`, 20 tasks, whole process");
    expect(report).toContain("`fixpoint status --json > tasks.json`, 20 tasks, whole process");
    expect(report).toContain("`fixpoint status` (the table), 20 tasks, whole process");
    expect(report).toContain("`fixpoint status > tasks.txt` (the table), 20 tasks, whole process");
    expect(report).toContain("`fixpoint reviewers`, 20 tasks, whole process");
    expect(report).toContain("`fixpoint clean --dry-run`, 20 tasks, whole process");
    expect(report).toContain("reading and checking a workflow of 400 stages");
    expect(report).toContain("time per stage added reading a workflow, 200 → 400 ÷ 50 → 200 stages");
    expect(report).toContain("deduplicating 10,000 findings over 500 files, median");
    expect(report).toContain("deduplicating 300 findings without a file, median");
    expect(report).toContain("adding 200 findings to a registry, all in one file without lines");
    expect(report).toContain("time per finding without a file, 300 ÷ 100 findings");
    for (const r of results) {
      expect(Number.isFinite(r.value)).toBe(true);
      // A growth row compares differences between sizes: noise can make one shrink, and then the
      // row says it cannot judge (test/bench/workflow-growth.test.ts) instead of reading as met.
      if (r.value <= 0) {
        expect(r.ok).toBe(false);
        expect(r.detail).toContain("sizes too close together to judge growth");
      }
      expect(rows.some((row) => row.startsWith(`| ${r.name} |`))).toBe(true);
    }
  }, 240_000);

  it("the PostgreSQL status benchmark prints the same bytes as its floor program, on the tests' server", async () => {
    // It throws when the floor program and fixpoint print different bytes.
    const results = await benchPgStatus([25]);
    expect(results.map((r) => r.name)).toEqual([
      "`fixpoint status --json` with PostgreSQL, 25 tasks, whole process, median",
      "`fixpoint status` (the table) with PostgreSQL, 25 tasks, whole process, median",
    ]);
    expect(results[1]?.detail).toMatch(/MiB of lines and the totals/);
    expect(results[0]?.detail).toMatch(/fixpoint \d+\.\d+× that/);
    expect(Number.isFinite(results[0]?.value)).toBe(true);
  }, 240_000);

  it("the clean benchmark removes every worktree and deletes exactly the branches without a commit of their own", async () => {
    // It throws when clean fails, removes fewer worktrees or deletes other branches than it should.
    const results = await benchClean([4, 8]);
    expect(results.map((r) => r.name)).toEqual([
      "`fixpoint clean --branches`, 4 finished tasks holding a worktree and a branch, whole process",
      "`fixpoint clean --branches`, 8 finished tasks holding a worktree and a branch, whole process",
      "time per task, `fixpoint clean --branches`, 8 ÷ 4 tasks",
    ]);
    expect(results[1]?.detail).toContain("(6 deleted, 2 kept for a commit of their own)");
    for (const r of results) expect(Number.isFinite(r.value)).toBe(true);
  }, 240_000);

  it("the worktree-add benchmark checks out each new task's worktree beside worktrees laid out as git lays them", async () => {
    // It throws when an add does not check the worktree out.
    const results = await benchWorktreeAdd([3, 12]);
    expect(results.map((r) => r.name)).toEqual([
      "a new task's worktree with 3 worktrees kept (median of 5)",
      "a new task's worktree with 12 worktrees kept (median of 5)",
      "a new task's worktree, 12 ÷ 3 worktrees kept",
    ]);
    expect(results[0]?.detail).toMatch(/`git worktree add -b` in the same run: \d+\.\d ms/);
    for (const r of results) expect(Number.isFinite(r.value)).toBe(true);
  }, 240_000);

  it("the prompt-cache benchmark runs its reference loop (3 reviewers, 2 cycles) to APPROVED in every layout", async () => {
    // It throws when a loop does not end APPROVED after exactly two review cycles.
    const results = await benchPromptCache();
    expect(results.map((r) => r.name)).toContain(
      "review prompt bytes already sent by an earlier call of the task",
    );
    for (const r of results) expect(Number.isFinite(r.value)).toBe(true);
  }, 240_000);
});
