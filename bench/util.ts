import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MAX_STAGES } from "../src/config/defaults.js";

/**
 * What a benchmark's git runs with (on top of the environment): no user or system config, a fixed
 * identity, and no background `git gc --auto` after hundreds of commits, which would race the
 * cleanup.
 */
export const BENCH_GIT_ENV = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@localhost",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@localhost",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "gc.auto",
  GIT_CONFIG_VALUE_0: "0",
} as const;

export interface BenchResult {
  name: string;
  /** The measured figure, in `unit`. */
  value: number;
  unit: string;
  budget: string;
  ok: boolean;
  detail: string;
}

/**
 * The two sizes a growth ratio compares: the smallest and largest given, or, for one size alone,
 * that size and the defaults' smallest (or, being that one, their largest): a size compared with
 * itself says nothing.
 */
export function sizesCompared(sizes: readonly number[], defaults: readonly number[]): [number, number] {
  const lone = new Set(sizes).size === 1 ? sizes[0] : undefined;
  const [low, high] = [Math.min(...defaults), Math.max(...defaults)];
  const pool = lone === undefined ? sizes : [lone, lone === low ? high : low];
  return [Math.min(...pool), Math.max(...pool)];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

/** The checkout's root, whether this runs compiled (dist-bench/bench) or from source (bench/). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("bench: no package.json above the bench folder");
    dir = up;
  }
  return dir;
}

/**
 * `<root>/repo`: a git repository with one commit (`notes.txt`) and `.fixpoint/` excluded, for a
 * project the benchmark runs through the CLI.
 */
export function cliProjectRepo(root: string): string {
  const repo = join(root, "repo");
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: repo, env: { ...process.env, ...BENCH_GIT_ENV } });
  mkdirSync(repo);
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "notes.txt"), "start\n");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  writeFileSync(join(repo, ".git", "info", "exclude"), "/.fixpoint/\n");
  return repo;
}

/**
 * A workflow `chain` of `n` agent stages `s0 … s<n-1>` run one after another, then `done`. A chain
 * longer than `defaults max-stages` allows names its own `max-stages`, as a user's would: the
 * limit is there to stop a runaway loop, not a long pipeline someone asked for.
 */
export function chainWorkflow(n: number): string {
  const stages = Array.from(
    { length: n },
    (_, i) => `    stage "s${i}" kind="agent" agent="implementer" prompt="implement"`,
  );
  const transitions = Array.from(
    { length: n },
    (_, i) => `    transition from="s${i}" to="${i + 1 < n ? `s${i + 1}` : "done"}"`,
  );
  const limit = n + 1 > DEFAULT_MAX_STAGES ? ` max-stages=${n + 1}` : "";
  return `workflow "chain"${limit} {\n    start "s0"\n${stages.join("\n")}\n    stage "done" kind="exit"\n${transitions.join("\n")}\n}\n`;
}

/**
 * A workflow `chain` (the name `fixpointChain`'s task asks for) of one parallel block of `n`
 * agent stages, four at a time, then `done`.
 */
export function wideWorkflow(n: number): string {
  const children = Array.from(
    { length: n },
    (_, i) => `        stage "c${i}" kind="agent" agent="implementer" prompt="implement"`,
  );
  const limit = n + 2 > DEFAULT_MAX_STAGES ? ` max-stages=${n + 2}` : "";
  return `workflow "chain"${limit} {\n    start "block"\n    parallel "block" max=4 {\n${children.join("\n")}\n    }\n    stage "done" kind="exit"\n    transition from="block" to="done"\n}\n`;
}
