import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_GIT_ENV, type BenchResult, cliProjectRepo, median, repoRoot, sizesCompared } from "./util.js";

/** Issue 10 (3): a run resumed after 10 stages and after 3,000. */
export const RESUME_SIZES = [10, 3_000];
/** "The same time": within a tenth, the noise of one command's start on this machine. */
const TARGET = 1.1;
const RUNS = 9;
const RM = { recursive: true, force: true, maxRetries: 5, retryDelay: 200 } as const;
const CLI = join(repoRoot(), "dist", "bin", "fixpoint.js");

/** `n` no-op agent stages, then a `human` stage that pauses the run, then the exit. */
function pausingChain(n: number): string {
  const stages = Array.from({ length: n }, (_, i) => `    stage "s${i}" kind="agent" agent="implementer"`);
  const transitions = Array.from(
    { length: n },
    (_, i) => `    transition from="s${i}" to="${i + 1 < n ? `s${i + 1}` : "ask"}"`,
  );
  return [
    'workflow "chain" {',
    '    start "s0"',
    ...stages,
    '    stage "ask" kind="human" prompt="go on?"',
    '    stage "done" kind="exit"',
    ...transitions,
    '    transition from="ask" to="done"',
    "}",
    "",
  ].join("\n");
}

interface Paused {
  root: string;
  repo: string;
  env: NodeJS.ProcessEnv;
  /** The store's files as they were when the run was paused and approved. */
  snapshot: string;
}

function cli(p: { repo: string; env: NodeJS.ProcessEnv }, ...args: string[]): { ms: number; out: string } {
  const start = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: p.repo, env: p.env, maxBuffer: 1 << 30 });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`fixpoint ${args.join(" ")}: ${r.stderr}`);
  return { ms, out: r.stdout.toString("utf8") };
}

/** A project whose one task ran `n` stages and waits at the human stage, approved. */
function pausedAfter(n: number): Paused {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-resume-"));
  const repo = cliProjectRepo(root);
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: join(root, "home"),
    FIXPOINT_HOME: join(root, "fh"),
    ...BENCH_GIT_ENV,
  };
  writeFileSync(
    join(repo, "fixpoint.kdl"),
    'agent "implementer" backend="command" command="true" timeout="1m"\n',
  );
  mkdirSync(join(repo, ".fixpoint", "workflows"), { recursive: true });
  writeFileSync(join(repo, ".fixpoint", "workflows", "chain.kdl"), pausingChain(n));
  const p = { root, repo, env, snapshot: join(root, "snapshot") };
  cli(p, "add", "a chain", "--workflow", "chain");
  cli(p, "work");
  const shown = JSON.parse(cli(p, "show", "t-1", "--json").out) as {
    task: { status: string };
    stages: unknown[];
  };
  if (shown.task.status !== "needs_human" || shown.stages.length <= n) {
    throw new Error(`the ${n}-stage run did not pause at its human stage: ${shown.task.status}`);
  }
  cli(p, "approve", "t-1");
  mkdirSync(p.snapshot);
  for (const f of storeFiles(p.repo)) copyFileSync(join(p.repo, ".fixpoint", f), join(p.snapshot, f));
  return p;
}

const storeFiles = (repo: string): string[] =>
  readdirSync(join(repo, ".fixpoint")).filter((f) => f.startsWith("fixpoint.db"));

/**
 * `fixpoint work` resuming the paused run, the whole process: it reads the workflow and the
 * checkpoint, runs the human stage and the exit, and ends the run. The store is put back as it was
 * before, so every run resumes the same checkpoint. `cold`: the workflow cache is removed first.
 */
function resumeOnce(p: Paused, cold = false): number {
  for (const f of storeFiles(p.repo)) rmSync(join(p.repo, ".fixpoint", f));
  for (const f of readdirSync(p.snapshot)) copyFileSync(join(p.snapshot, f), join(p.repo, ".fixpoint", f));
  if (cold) rmSync(join(p.repo, ".fixpoint", "cache"), RM);
  const r = cli(p, "work");
  if (!r.out.includes("t-1 completed")) throw new Error(`the resumed run did not complete: ${r.out}`);
  return r.ms;
}

/**
 * Resuming a run through the CLI after the smallest and after the largest of `sizes` stages
 * (chains of no-op agents paused at a human stage, approved): whole processes, alternating, the
 * ratio of the medians. Also the largest without the workflow cache, for what the cache saves.
 * One size alone is set against the default short run (sizesCompared).
 */
export async function benchResume(sizes: number[] = RESUME_SIZES, runs = RUNS): Promise<BenchResult[]> {
  const [small, large] = sizesCompared(sizes, RESUME_SIZES);
  const a = pausedAfter(small);
  const b = pausedAfter(large);
  try {
    const times = { small: [] as number[], large: [] as number[], cold: [] as number[] };
    resumeOnce(a);
    resumeOnce(b);
    for (let i = 0; i < runs; i++) {
      times.small.push(resumeOnce(a));
      times.large.push(resumeOnce(b));
      times.cold.push(resumeOnce(b, true));
    }
    if (!existsSync(join(b.repo, ".fixpoint", "cache", "workflows")))
      throw new Error("no workflow cache was written");
    const [s, l, c] = [median(times.small), median(times.large), median(times.cold)];
    // Each large run next to the small one before it: a slow second on the machine weighs on both
    // sides of a pair, not on one side of the medians (as for the CLI chains).
    const pairs = times.large.map((x, i) => x / (times.small[i] as number));
    const ratio = median(pairs);
    return [
      {
        name: `resuming a run through \`fixpoint work\` after ${large.toLocaleString("en")} stages ÷ after ${small.toLocaleString("en")}, whole process`,
        value: ratio,
        unit: "×",
        budget: `≤ ${TARGET}×`,
        ok: ratio <= TARGET,
        detail: `median of the ratios of ${runs} alternating pairs (${pairs.map((x) => x.toFixed(2)).join(", ")}; the medians' ratio: ${(l / s).toFixed(2)}×): ${l.toFixed(0)} ms after ${large.toLocaleString("en")} no-op stages, ${s.toFixed(0)} ms after ${small.toLocaleString("en")} (each reads the workflow and the checkpoint, runs a human stage and the exit, ends the run); the ${large.toLocaleString("en")}-stage one with its workflow cache removed first: ${c.toFixed(0)} ms (${(c / s).toFixed(2)}×)`,
      },
    ];
  } finally {
    rmSync(a.root, RM);
    rmSync(b.root, RM);
  }
}
