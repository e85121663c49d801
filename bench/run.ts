import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchBreadth } from "./breadth.js";
import { benchChains, CHAIN_SIZES } from "./chain.js";
import { benchClaimsSqlite } from "./claims.js";
import { benchClean, CLEAN_SIZES } from "./clean.js";
import { benchCliChains, CLI_CHAIN_SIZES, CLI_EDIT_CHAIN_MAX } from "./cli-chain.js";
import { benchConvergence } from "./convergence.js";
import { benchDedup, FILELESS_SIZES, ONE_FILE_SIZES } from "./dedup.js";
import { benchEngineOverhead } from "./engine-overhead.js";
import { benchHostileText, HOSTILE_SIZES } from "./hostile.js";
import { benchPgClaims } from "./pg-claims.js";
import { benchPgStatus, PG_STATUS_SIZES } from "./pg-status.js";
import { benchPromptBytes } from "./prompt-bytes.js";
import { benchPromptCache } from "./prompt-cache.js";
import { benchRegistry, REGISTRY_SIZES } from "./registry.js";
import { fmt, renderReport, reportOnly } from "./report.js";
import { benchResume, RESUME_SIZES } from "./resume.js";
import { benchSpawn, SPAWN_MEMORY_MIB } from "./spawn.js";
import { benchStatus, STATUS_SIZES } from "./status.js";
import { type BenchResult, machine } from "./util.js";
import { benchWorkCycles, WORK_CYCLE_SIZES } from "./work-cycles.js";
import { benchWorkflowSize, WORKFLOW_SIZES } from "./workflow-size.js";
import { benchWorktreeAdd, WORKTREE_ADD_SIZES } from "./worktree-add.js";

/**
 * `npm run bench`: every SPEC §14 budget we can measure here, one after another (never in
 * parallel, so they do not disturb each other), written to docs/benchmarks.md.
 */
/**
 * Sizes for the issue 10 benchmarks; each can be overridden with a comma list, e.g.
 * `FIXPOINT_BENCH_CHAIN=10,100 npm run bench`; the report names the sizes used.
 */
function sizes(name: string, defaults: number[]): number[] {
  const v = process.env[name];
  if (!v) return defaults;
  const parsed = v.split(",").map((x) => Number(x.trim()));
  if (parsed.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new Error(`${name} must be a comma-separated list of whole numbers ≥ 1, got ${JSON.stringify(v)}`);
  return parsed;
}
const SIZE_VARS: string[] = [
  "FIXPOINT_BENCH_CHAIN",
  "FIXPOINT_BENCH_CLI_CHAIN",
  "FIXPOINT_BENCH_RESUME",
  "FIXPOINT_BENCH_FINDINGS",
  "FIXPOINT_BENCH_TASKS",
  "FIXPOINT_BENCH_PG_TASKS",
  "FIXPOINT_BENCH_RESOLVED",
  "FIXPOINT_BENCH_WORKFLOW",
  "FIXPOINT_BENCH_WORK_FINDINGS",
  "FIXPOINT_BENCH_SPAWN_MIB",
  "FIXPOINT_BENCH_DEDUP_FILELESS",
  "FIXPOINT_BENCH_DEDUP_ONE_FILE",
  "FIXPOINT_BENCH_HOSTILE",
  "FIXPOINT_BENCH_BREADTH",
  "FIXPOINT_BENCH_CLEAN",
];

const BENCHES: [string, () => Promise<BenchResult | BenchResult[]>][] = [
  ["engine", benchEngineOverhead],
  ["chain", () => benchChains(sizes("FIXPOINT_BENCH_CHAIN", CHAIN_SIZES))],
  [
    "cli-chain",
    () => {
      const n = sizes("FIXPOINT_BENCH_CLI_CHAIN", CLI_CHAIN_SIZES);
      // Sizes asked for run both kinds; the defaults' longest editing chain is left out.
      const edits = process.env.FIXPOINT_BENCH_CLI_CHAIN ? n : n.filter((x) => x <= CLI_EDIT_CHAIN_MAX);
      return benchCliChains(n, undefined, edits);
    },
  ],
  ["resume", () => benchResume(sizes("FIXPOINT_BENCH_RESUME", RESUME_SIZES))],
  ["workflow", () => benchWorkflowSize(sizes("FIXPOINT_BENCH_WORKFLOW", WORKFLOW_SIZES))],
  ["registry", () => benchRegistry(sizes("FIXPOINT_BENCH_FINDINGS", REGISTRY_SIZES))],
  ["work", () => benchWorkCycles(sizes("FIXPOINT_BENCH_WORK_FINDINGS", WORK_CYCLE_SIZES))],
  ["prompt", () => benchPromptBytes(sizes("FIXPOINT_BENCH_RESOLVED", [5_000])[0])],
  ["status", () => benchStatus(sizes("FIXPOINT_BENCH_TASKS", STATUS_SIZES))],
  ["claims", benchClaimsSqlite],
  ["clean", () => benchClean(sizes("FIXPOINT_BENCH_CLEAN", CLEAN_SIZES))],
  ["worktree-add", () => benchWorktreeAdd(sizes("FIXPOINT_BENCH_WORKTREES", WORKTREE_ADD_SIZES))],
  ["pg-claims", benchPgClaims],
  ["pg-status", () => benchPgStatus(sizes("FIXPOINT_BENCH_PG_TASKS", PG_STATUS_SIZES))],
  ["convergence", benchConvergence],
  ["prompt-cache", benchPromptCache],
  [
    "dedup",
    () =>
      benchDedup(
        sizes("FIXPOINT_BENCH_DEDUP_FILELESS", FILELESS_SIZES),
        sizes("FIXPOINT_BENCH_DEDUP_ONE_FILE", ONE_FILE_SIZES),
      ),
  ],
  ["hostile", () => benchHostileText(sizes("FIXPOINT_BENCH_HOSTILE", HOSTILE_SIZES))],
  // FIXPOINT_BENCH_BREADTH=5: every case at 5 times its base size (and 10 times that).
  ["breadth", () => benchBreadth(sizes("FIXPOINT_BENCH_BREADTH", [1])[0])],
  // It grows its process by hundreds of MiB (the point of the benchmark); each key has a process of
  // its own (main), so no later benchmark pays for that.
  ["spawn", () => benchSpawn(sizes("FIXPOINT_BENCH_SPAWN_MIB", SPAWN_MEMORY_MIB))],
];

/**
 * Set in the child process that runs one benchmark (runInChild): the file its results go to.
 */
const RESULTS_FILE = "FIXPOINT_BENCH_RESULTS_FILE";

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const unknown = only.filter((k) => !BENCHES.some(([key]) => key === k));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown benchmark ${unknown.join(", ")}; keys: ${BENCHES.map(([k]) => k).join(", ")}\n`,
    );
    process.exitCode = 2;
    return;
  }
  const resultsFile = process.env[RESULTS_FILE];
  if (resultsFile !== undefined) {
    writeFileSync(resultsFile, JSON.stringify(await runHere(only)));
    return;
  }
  // `npm run bench` builds first, and the first benchmark, the engine's, creates a transcript file
  // per stage: right after a build it measured 2.96 ms per stage where a run a minute later measured
  // 1.87 ms. The build's writes are flushed to the disk before anything is timed.
  spawnSync("sync", { stdio: "ignore" });
  const results: BenchResult[] = [];
  for (const [key] of BENCHES) {
    if (only.length && !only.includes(key)) continue;
    process.stdout.write(`running ${key}…\n`);
    for (const x of runInChild(key)) {
      results.push(x);
      process.stdout.write(
        `  ${reportOnly(x) ? "—   " : x.ok ? "ok  " : "OVER"} ${x.name}: ${fmt(x.value)} ${x.unit} (budget ${x.budget}) — ${x.detail}\n`,
      );
    }
  }
  if (only.length === 0)
    writeReport(
      results,
      SIZE_VARS.filter((v) => process.env[v]).map((v) => `${v}=${process.env[v]}`),
    );
  if (results.some((r) => !r.ok)) process.exitCode = 1;
}

/** The benchmarks named (all when none), one after another in this process. */
async function runHere(keys: string[]): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const [key, run] of BENCHES) {
    if (keys.length && !keys.includes(key)) continue;
    const r = await run();
    out.push(...(Array.isArray(r) ? r : [r]));
  }
  return out;
}

/**
 * One benchmark in a Node process of its own. In one long process, what an earlier benchmark
 * left behind slowed the later ones: after the registry's 50,000 findings (a heap of hundreds of
 * MiB) every process the status benchmark started cost more, `status --json` at 100,000 tasks
 * measured 318 ms where a fresh process measured 241 ms (the same machine, minutes apart).
 */
function runInChild(key: string): BenchResult[] {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-bench-results-"));
  try {
    const file = join(dir, "results.json");
    const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), key], {
      stdio: "inherit",
      env: { ...process.env, [RESULTS_FILE]: file },
    });
    if (r.status !== 0 || !existsSync(file))
      throw new Error(`benchmark ${key} failed (exit ${r.status ?? r.signal}); its output is above`);
    return JSON.parse(readFileSync(file, "utf8")) as BenchResult[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeReport(results: BenchResult[], sizes: string[]): void {
  const path = fileURLToPath(new URL("../../docs/benchmarks.md", import.meta.url));
  const command = `${sizes.length ? `${sizes.join(" ")} ` : ""}npm run bench`;
  const meta = { date: new Date().toISOString().slice(0, 10), machine: machine(), command };
  // The sections after the generated table (`## …`, written by hand: how a side-by-side case is
  // set up and what its figures mean) stay as they are.
  const old = existsSync(path) ? readFileSync(path, "utf8") : "";
  const kept = old.indexOf("\n## ");
  writeFileSync(path, renderReport(results, meta) + (kept >= 0 ? old.slice(kept) : ""));
  process.stdout.write(`wrote ${path}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
