import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGitRunner } from "../src/git/exec.js";
import { createGit } from "../src/git/git-cli.js";
import { BENCH_GIT_ENV, type BenchResult, median, sizesCompared } from "./util.js";

/**
 * A new task's worktree in a repository that keeps `n` others (issue 10: linear at any size; every
 * task's worktree stays until `fixpoint clean`, SPEC §11). Fixpoint's add (`Git.ensureWorktree`:
 * `show-ref`, `branch`, the record written, `reset --hard`) alternates in one run with `git
 * worktree add -b`, which it replaced for a plain layout and which reads every kept worktree to add
 * one: 63 ms with none, 324 ms with 2,000, 1,337 ms with 10,000 (docs/benchmarks.md).
 */
export const WORKTREE_ADD_SIZES = [100, 2_000];
/** Adds per size and way, alternating. */
const ROUNDS = 5;
/** Time per add with the most worktrees kept ÷ with the fewest: flat is 1×. */
const GROWTH_BUDGET = 1.5;

const GIT_ENV = { ...process.env, ...BENCH_GIT_ENV };

/**
 * Lays out worktree `id` at `wt` on `branch` (made at `tip`) as `git worktree add` lays one out:
 * git's own command would take minutes to make thousands (it reads every worktree to add one).
 */
export function layOutWorktree(common: string, wt: string, id: string, branch: string, tip: string): void {
  const admin = join(common, "worktrees", id);
  const ref = join(common, "refs", "heads", branch);
  mkdirSync(join(ref, ".."), { recursive: true });
  writeFileSync(ref, `${tip}\n`);
  mkdirSync(admin, { recursive: true });
  mkdirSync(wt, { recursive: true });
  writeFileSync(join(admin, "HEAD"), `ref: refs/heads/${branch}\n`);
  writeFileSync(join(admin, "commondir"), "../..\n");
  writeFileSync(join(admin, "gitdir"), `${join(wt, ".git")}\n`);
  copyFileSync(join(common, "index"), join(admin, "index"));
  writeFileSync(join(wt, ".git"), `gitdir: ${admin}\n`);
}

/** A repository of 50 files with `n` worktrees kept. */
function repoKeeping(root: string, n: number): string {
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: repo, env: GIT_ENV, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  for (let i = 0; i < 50; i++) writeFileSync(join(repo, `f${i}.ts`), `export const x${i} = ${i};\n`);
  git("add", ".");
  git("commit", "-q", "-m", "init");
  const base = git("rev-parse", "HEAD");
  const common = join(repo, ".git");
  for (let i = 0; i < n; i++)
    layOutWorktree(common, join(root, "kept", `k${i}`), `k${i}`, `kept/k${i}`, base);
  return repo;
}

/** Median ms of a new worktree's add at `n` kept, fixpoint's and git's, alternating. */
async function addsAt(n: number): Promise<{ fixpoint: number; git: number }> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-wtadd-"));
  try {
    const repo = repoKeeping(root, n);
    const fixpoint = createGit({ env: GIT_ENV });
    const runner = createGitRunner({ env: GIT_ENV });
    const ours: number[] = [];
    const gits: number[] = [];
    // Round 0 warms both up (the modules, the files git reads) and is not counted.
    for (let r = 0; r <= ROUNDS; r++) {
      const path = join(root, "new", `t-${r}`);
      let t0 = performance.now();
      const made = await fixpoint.ensureWorktree({ repo, path, branch: `fixpoint/t-${r}`, base: "main" });
      if (r > 0) ours.push(performance.now() - t0);
      if (!made.created || !existsSync(join(path, "f49.ts")))
        throw new Error(`worktree add at ${n} kept: ${path} was not checked out`);
      const other = join(root, "new", `g-${r}`);
      mkdirSync(join(other, ".."), { recursive: true });
      t0 = performance.now();
      await runner.run(repo, ["worktree", "add", "-q", "-b", `git/g-${r}`, other, "main"]);
      if (r > 0) gits.push(performance.now() - t0);
    }
    return { fixpoint: median(ours), git: median(gits) };
  } finally {
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

/** A row per size (fixpoint's add beside git's) and the growth of fixpoint's between the extremes. */
export async function benchWorktreeAdd(sizes: number[] = WORKTREE_ADD_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const at = new Map<number, { fixpoint: number; git: number }>();
  for (const n of sizes) {
    const m = await addsAt(n);
    at.set(n, m);
    out.push({
      name: `a new task's worktree with ${n.toLocaleString("en")} worktrees kept (median of ${ROUNDS})`,
      value: m.fixpoint,
      unit: "ms",
      budget: "report",
      ok: true,
      detail: `\`git worktree add -b\` in the same run: ${m.git.toFixed(1)} ms (${(m.git / m.fixpoint).toFixed(2)}× fixpoint's)`,
    });
  }
  const [small, large] = sizesCompared(sizes, WORKTREE_ADD_SIZES);
  if (small !== large) {
    const a = at.get(small) ?? (await addsAt(small));
    const b = at.get(large) ?? (await addsAt(large));
    const growth = b.fixpoint / a.fixpoint;
    out.push({
      name: `a new task's worktree, ${large.toLocaleString("en")} ÷ ${small.toLocaleString("en")} worktrees kept`,
      value: growth,
      unit: "×",
      budget: `≤ ${GROWTH_BUDGET}× (flat: 1×)`,
      ok: growth <= GROWTH_BUDGET,
      detail: `${a.fixpoint.toFixed(1)} → ${b.fixpoint.toFixed(1)} ms; \`git worktree add -b\` ${a.git.toFixed(1)} → ${b.git.toFixed(1)} ms (${(b.git / a.git).toFixed(2)}×)`,
    });
  }
  return out;
}
