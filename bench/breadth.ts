import { performance } from "node:perf_hooks";
import type { Finding, Learning, RawFinding } from "../src/domain/types.js";
import { diffFiles, learningsFor } from "../src/findings/learnings.js";
import { Registry } from "../src/findings/registry.js";
import { techDebtIssue } from "../src/github/render.js";
import { judgeReviews } from "../src/github/stage/review-state.js";
import { fileTechDebtIssues } from "../src/github/tech-debt.js";
import { createProcessRunner } from "../src/util/process-runner.js";
import { reviewThread } from "../test/github/helpers.js";
import { fixpointChain } from "./chain.js";
import { type BenchResult, wideWorkflow } from "./util.js";

/**
 * Sizes along the axes the other benchmarks hold still (issue 10: "a hidden benchmark at sizes
 * you have not tuned for"): the children of one parallel block, the length of one line an agent
 * prints, a repository's learnings against a diff's files, a PR's unresolved threads, one title
 * said again and again in one file, a reviewer's batch raised again, the tech-debt issues already
 * filed. Each is timed at a size and at `FACTOR` times it; a linear cost takes `FACTOR` times as
 * long (growth per unit 1×). Each was quadratic before 2026-12-01 (docs/benchmarks.md has the
 * before and after).
 */
export const BREADTH_FACTOR = 10;
/** Time per unit at the larger size ÷ at the smaller: linear is 1×, quadratic is FACTOR×. */
const GROWTH_BUDGET = 2;
/** Runs per size; the least counts (a collection left by the run before is not the case's cost). */
const RUNS = 3;

interface Case {
  name: string;
  /** What one unit of size is, for the row ("characters", "threads"). */
  unit: string;
  base: number;
  /** Sets up outside the timing, returns what is timed. */
  prepare: (n: number) => () => unknown;
}

const runner = createProcessRunner();

/** A long line an agent prints (a stream-json tool result): `n` bytes with no newline, then one. */
function oneLine(n: number): () => Promise<number> {
  return async () => {
    let longest = 0;
    const r = await runner.run({
      command: "sh",
      args: ["-c", `head -c ${n} /dev/zero | tr '\\0' a; echo`],
      cwd: process.cwd(),
      maxBuffer: 1024,
      onStdoutLine: (l) => {
        longest = Math.max(longest, l.length);
      },
    });
    if (r.exitCode !== 0 || longest !== n)
      throw new Error(`one line of ${n}: read ${longest}, exit ${r.exitCode}`);
    return longest;
  };
}

function learning(i: number, scope: string): Learning {
  return {
    id: `L-${i}`,
    repo: "/repo",
    text: "inputs are validated at the boundary",
    scope,
    source: { kind: "person" },
    origin: null,
    createdAt: 0,
    createdBy: "bench",
    hits: 0,
    lastHitAt: null,
    removedAt: null,
  };
}

/** `n` learnings (each scoped to a file, a folder or a glob, as people and reviews scope them) and `n` files. */
function learningsInScope(n: number): () => number {
  const learnings = Array.from({ length: n }, (_, i) =>
    learning(
      i,
      i % 3 === 0
        ? `packages/p${i}/src/mod/file${i}.ts`
        : i % 3 === 1
          ? `packages/p${i}/src`
          : `packages/p${i}/**/*.ts`,
    ),
  );
  const diff = Array.from({ length: n }, (_, j) => {
    const f = `packages/q${j}/src/mod/file${j}.ts`;
    return `diff --git a/${f} b/${f}\n--- a/${f}\n+++ b/${f}\n@@ -1 +1 @@\n-a\n+b\n`;
  }).join("");
  // As the review stage has them: the diff's files read from its text, the learnings from the
  // store (flat strings, not the ropes a template makes, whose first hashing would be timed).
  const files = diffFiles(diff);
  const stored: Learning[] = JSON.parse(JSON.stringify(learnings));
  return () => learningsFor(stored, files).length;
}

/** A PR's `n` unresolved threads, judged as `pr watch` and `await-review` judge them. */
function threadsJudged(n: number): () => number {
  const threads = Array.from({ length: n }, (_, i) =>
    reviewThread(`PRRT_${i.toString(36).padStart(8, "0")}`, [
      {
        databaseId: i + 1,
        author: "reviewer",
        authorIsBot: false,
        body: "please fix",
        createdAt: "2026-01-01T00:00:00Z",
      },
    ]),
  );
  return () => {
    const answer = judgeReviews({ reviews: [], threads }, threads, "head");
    if (answer.kind !== "changes" || answer.threads.length !== n) throw new Error("threads misjudged");
    return answer.threads.length;
  };
}

const REGISTRY = { blockingSeverity: "P1" as const, now: () => 0 };

function raw(title: string, file: string, line: number): RawFinding {
  return {
    severity: "P2",
    category: "style",
    title,
    body: "b",
    file,
    lineStart: line,
    lineEnd: line,
    suggestedFix: null,
  };
}

/** One title said at `n` places of one file (a bot's "missing return type" on every function), one at a time. */
function sameTitleOneFile(n: number): () => number {
  return () => {
    const registry = Registry.load("t-1", [], REGISTRY);
    for (let i = 0; i < n; i++)
      registry.addFindings([raw("Missing return type", "src/big.ts", i * 20)], {
        source: `pr:T${i}`,
        cycle: 1,
      });
    return registry.all().length;
  };
}

/** A reviewer's batch of `n` findings, raised again the next cycle. */
function batchRaisedAgain(n: number): () => number {
  const raws = Array.from({ length: n }, (_, i) =>
    raw(`Problem number ${i} here`, `src/f${i % 20}.ts`, i * 20),
  );
  return () => {
    const registry = Registry.load("t-1", [], REGISTRY);
    registry.addFindings(raws, { source: "review:a", cycle: 1 });
    return registry.addFindings(raws, { source: "review:a", cycle: 2 }).merged.length;
  };
}

function deferred(i: number): Finding {
  return {
    taskId: "t-1",
    id: `F-${i}`,
    fingerprint: `src/f${i % 50}.ts:${i}:finding number ${i}`,
    severity: "P2",
    category: "design",
    title: `Finding number ${i}`,
    body: "x".repeat(1500),
    file: `src/f${i % 50}.ts`,
    lineStart: i,
    lineEnd: i,
    suggestedFix: null,
    sources: [],
    status: "deferred",
    firstCycle: 1,
    lastCycle: 1,
    timesReopened: 0,
    attempts: [],
    note: null,
    createdAt: 0,
    updatedAt: 0,
  };
}

/** `n` deferred findings filed as tech-debt issues where `n` other findings' issues are already filed. */
function techDebtFiled(n: number): () => Promise<number> {
  const findings = Array.from({ length: n }, (_, i) => deferred(i));
  const filed = Array.from({ length: n }, (_, j) => ({
    number: j + 1,
    url: `https://example.invalid/issues/${j + 1}`,
    title: "",
    body: techDebtIssue(deferred(1_000_000 + j), { taskId: "t-0" }).body,
    labels: ["tech-debt"],
  }));
  return async () => {
    let next = n;
    const client = {
      listIssuesWithLabel: async () => filed,
      createIssue: async () => ({ number: ++next, url: "https://example.invalid" }),
    };
    const r = await fileTechDebtIssues(client as never, findings, { label: "tech-debt", taskId: "t-1" });
    return r.created.length;
  };
}

/** One parallel block of `n` no-op agent stages through the worker `fixpoint work` runs (SQLite, real git). */
function wideBlock(n: number): () => Promise<number> {
  return async () => (await fixpointChain(n, false, { workflow: wideWorkflow(n) })).gaps.length;
}

export const BREADTH_CASES: Case[] = [
  {
    name: "children of one parallel block, through the worker",
    unit: "children",
    base: 300,
    prepare: wideBlock,
  },
  { name: "one line of an agent's output", unit: "bytes", base: 4 * 1024 * 1024, prepare: oneLine },
  {
    name: "learnings in scope of a diff, as many learnings as files",
    unit: "learnings",
    base: 1_000,
    prepare: learningsInScope,
  },
  { name: "a PR's unresolved threads judged", unit: "threads", base: 2_000, prepare: threadsJudged },
  {
    name: "one title said at every place of one file, added one by one",
    unit: "findings",
    base: 2_000,
    prepare: sameTitleOneFile,
  },
  { name: "a reviewer's batch raised again", unit: "findings", base: 3_000, prepare: batchRaisedAgain },
  {
    name: "deferred findings filed as issues beside as many filed before",
    unit: "findings",
    base: 300,
    prepare: techDebtFiled,
  },
];

async function least(run: () => unknown): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    await run();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/** Each case at `scale` × its base size and `FACTOR` times that: the growth in time per unit. */
export async function benchBreadth(scale = 1, cases: Case[] = BREADTH_CASES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const c of cases) {
    const small = Math.max(1, Math.round(c.base * scale));
    const large = small * BREADTH_FACTOR;
    const [a, b] = [c.prepare(small), c.prepare(large)];
    await a(); // compiled before it is timed
    const ta = await least(a);
    const tb = await least(b);
    const growth = tb / large / (ta / small);
    out.push({
      name: `time per unit, ${c.name}, ${large.toLocaleString("en")} ÷ ${small.toLocaleString("en")} ${c.unit}`,
      value: growth,
      unit: "×",
      budget: `≤ ${GROWTH_BUDGET}× (linear: 1×)`,
      ok: growth <= GROWTH_BUDGET,
      detail: `${ta.toFixed(2)} ms → ${tb.toFixed(2)} ms, the least of ${RUNS} runs each`,
    });
  }
  return out;
}
