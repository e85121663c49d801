import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/store/open.js";
import { CLI } from "./status.js";
import { BENCH_GIT_ENV, type BenchResult, sizesCompared } from "./util.js";
import { layOutWorktree } from "./worktree-add.js";

/**
 * `fixpoint clean --branches` over `n` finished tasks that each still hold a worktree and a branch
 * (issue 10: linear at any size): every worktree is clean and removed; three branches in four hold
 * nothing of their own and are deleted, the fourth holds a commit found nowhere else and is kept.
 * Before 2026-12-02 each removal and each branch deletion read every worktree and every ref of the
 * repository: 300 tasks took 44 s (147 ms a task); 1,000 took 206 s (206 ms a task) with the
 * worktrees already removed as now and the branches still one by one.
 */
export const CLEAN_SIZES = [100, 1_000];
/** Time per task at the larger size ÷ at the smaller: linear is 1×, quadratic is their ratio. */
const GROWTH_BUDGET = 1.5;

const GIT_ENV = { ...process.env, ...BENCH_GIT_ENV };

/** Of `n` tasks, those whose branch holds a commit of its own (every fourth): kept by `clean`. */
const keptOf = (n: number): number => Math.floor(n / 4);

/**
 * A repository with `n` finished tasks, each holding a worktree laid out as `git worktree add`
 * lays one out (git's own command would take minutes to make thousands: it reads every worktree
 * to add one) on its own branch.
 */
async function populate(root: string, n: number): Promise<string> {
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: repo, env: GIT_ENV, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "README.md"), "hello\n");
  writeFileSync(join(repo, "fixpoint.kdl"), "// bench\n");
  git("add", ".");
  git("commit", "-q", "-m", "init");
  const base = git("rev-parse", "HEAD");
  const tree = git("rev-parse", "HEAD^{tree}");
  const common = join(repo, ".git");
  const store = await openStore("sqlite", repo);
  try {
    await store.transaction(async (tx) => {
      for (let i = 0; i < n; i++) {
        const now = Date.now();
        const t = await tx.createTask(
          {
            type: "implement",
            title: `task ${i}`,
            prompt: "p",
            workflow: "implement-review",
            repo,
            baseBranch: "main",
            maxCycles: 3,
          },
          now,
        );
        const branch = `fixpoint/${t.id}`;
        const wt = join(root, "worktrees", t.id);
        const tip =
          i % 4 === 3
            ? execFileSync("git", ["commit-tree", tree, "-p", base, "-m", `work of ${t.id}`], {
                cwd: repo,
                env: GIT_ENV,
                encoding: "utf8",
              }).trim()
            : base;
        layOutWorktree(common, wt, t.id, branch, tip);
        writeFileSync(join(wt, "README.md"), "hello\n");
        writeFileSync(join(wt, "fixpoint.kdl"), "// bench\n");
        await tx.updateTask(
          t.id,
          { status: "completed", finalVerdict: "APPROVED", worktreePath: wt, branch },
          now,
        );
      }
    });
  } finally {
    await store.close();
  }
  return repo;
}

/** One `clean --branches` over `n` tasks: the whole process, in ms, checked for what it did. */
async function cleanOnce(n: number): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-clean-"));
  try {
    const repo = await populate(root, n);
    const env = { ...GIT_ENV, HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh") };
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, "clean", "--branches"], {
      cwd: repo,
      env,
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    const ms = performance.now() - t0;
    const kept = keptOf(n);
    const deleted = (r.stdout.match(/^ {2}deleted branch /gm) ?? []).length;
    if (
      r.status !== 0 ||
      !r.stdout.endsWith(`${n} worktree${n === 1 ? "" : "s"} removed\n`) ||
      deleted !== n - kept
    )
      throw new Error(
        `clean --branches of ${n} tasks: exit ${r.status}, ${deleted} branches deleted; ${r.stderr}`,
      );
    return ms;
  } finally {
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

/** `clean --branches` at each size: a row per size (time per task) and the growth between the extremes. */
export async function benchClean(sizes: number[] = CLEAN_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const perTask = new Map<number, number>();
  for (const n of sizes) {
    const ms = await cleanOnce(n);
    perTask.set(n, ms / n);
    out.push({
      name: `\`fixpoint clean --branches\`, ${n.toLocaleString("en")} finished tasks holding a worktree and a branch, whole process`,
      value: ms,
      unit: "ms",
      budget: "report",
      ok: true,
      detail: `${(ms / n).toFixed(1)} ms a task: its \`git status\`, its folder and git's record of it removed, the store told; then the branches in one batch (${n - keptOf(n)} deleted, ${keptOf(n)} kept for a commit of their own). Before: 147 ms a task at 300`,
    });
  }
  const [small, large] = sizesCompared(sizes, CLEAN_SIZES);
  if (small !== large) {
    const a = perTask.get(small) ?? (await cleanOnce(small)) / small;
    const b = perTask.get(large) ?? (await cleanOnce(large)) / large;
    const growth = b / a;
    out.push({
      name: `time per task, \`fixpoint clean --branches\`, ${large.toLocaleString("en")} ÷ ${small.toLocaleString("en")} tasks`,
      value: growth,
      unit: "×",
      budget: `≤ ${GROWTH_BUDGET}× (linear: 1×)`,
      ok: growth <= GROWTH_BUDGET,
      detail: `${a.toFixed(1)} → ${b.toFixed(1)} ms a task (before: 147 ms a task at 300; 206 ms at 1,000 with only the worktrees' removal changed)`,
    });
  }
  return out;
}
