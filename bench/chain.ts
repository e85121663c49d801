import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config/load.js";
import type { AgentBackend, AgentResolver } from "../src/domain/agent.js";
import type { Store } from "../src/domain/store.js";
import { ZERO_USAGE } from "../src/domain/types.js";
import { loadRunState, PAGE_SIZE } from "../src/engine/checkpoint.js";
import type { EngineDeps } from "../src/engine/deps.js";
import type { EngineEvent } from "../src/engine/events.js";
import { createPromptLibrary } from "../src/engine/prompts.js";
import { runWorker } from "../src/engine/worker.js";
import { createGitRunner } from "../src/git/exec.js";
import { createGit } from "../src/git/git-cli.js";
import { openStore } from "../src/store/open.js";
import { openDatabase } from "../src/store/sqlite/connection.js";
import { systemClock } from "../src/util/clock.js";
import { createProcessRunner } from "../src/util/process-runner.js";
import { nativeStarter } from "../src/util/spawner.js";
import { parseWorkflow } from "../src/workflow/parse.js";
import { BENCH_GIT_ENV, type BenchResult, chainWorkflow, median, repoRoot } from "./util.js";

/** Issue 10 (a): chains of no-op stages, and of stages that each edit one file. */
export const CHAIN_SIZES = [10, 100, 1_000, 3_000];
/** fixpoint's per-stage time may be at most this multiple of the floor's. */
export const CHAIN_TARGET = 1.5;

const GIT_ENV = { ...process.env, ...BENCH_GIT_ENV };
const RM = { recursive: true, force: true, maxRetries: 5, retryDelay: 200 } as const;
/** git as fixpoint runs it (its spawner: posix_spawn where built), so the floor's commit costs what fixpoint's does. */
const floorGit = createGitRunner({ env: GIT_ENV });

async function gitRepo(root: string): Promise<string> {
  const repo = join(root, "repo");
  await floorGit.run(root, ["init", "-q", "-b", "main", repo]);
  writeFileSync(join(repo, "notes.txt"), "start\n");
  await floorGit.run(repo, ["add", "-A"]);
  await floorGit.run(repo, ["commit", "-q", "-m", "init"]);
  return repo;
}

/**
 * The no-op agent: answers at once and, for an editing chain, changes one file. It writes no
 * transcript: a transcript is an agent backend's own log (creating one file costs about 1 ms
 * median, 2.4 ms mean on the benchmark machine's disk, more than the engine's work for a stage),
 * and this benchmark measures what fixpoint adds per stage. docs/benchmarks.md gives its cost.
 */
function noopAgent(edit: ((cwd: string) => void) | null): AgentBackend {
  return {
    kind: "bench-noop",
    supportsSessions: true,
    async run(req) {
      edit?.(req.cwd);
      return {
        ok: true,
        text: "ok",
        usage: { ...ZERO_USAGE },
        costUsd: 0,
        exitCode: 0,
        durationMs: 0,
        sessionId: "bench",
      };
    },
  };
}

/** One chain's figures: the time between consecutive stage ends, and the whole chain's wall time. */
export interface ChainTimes {
  gaps: number[];
  totalMs: number;
  /** fixpoint's chains: loading the run's last checkpoint, as a resumed run starts (median ms). */
  loadMs?: number;
}

/** Loads of the finished run's checkpoint timed per chain (the first few are warm-up). */
const LOADS = 30;
const WARM_LOADS = 5;

/**
 * The floor: what any tool must do per stage. One SQLite commit recording the stage (its id, the
 * next stage, the time) on a connection opened exactly as fixpoint's store opens its own
 * (`openDatabase`: WAL, synchronous=NORMAL, foreign keys, busy timeout) and, when the stage
 * changed a file, one `git commit -a` of it.
 */
export async function floorChain(n: number, edit: boolean): Promise<ChainTimes> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-floor-"));
  try {
    const repo = await gitRepo(root);
    const db = openDatabase(join(root, "floor.db"), 5_000);
    db.exec(
      "CREATE TABLE stages (id INTEGER PRIMARY KEY, stage TEXT NOT NULL, next TEXT, at INTEGER NOT NULL)",
    );
    const insert = db.prepare("INSERT INTO stages (stage, next, at) VALUES (?, ?, ?)");
    const ends: number[] = [];
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      if (edit) {
        writeFileSync(join(repo, "notes.txt"), `stage ${i}\n`);
        await floorGit.run(repo, ["commit", "-q", "-a", "-m", `stage ${i}`]);
      }
      db.transaction(() => insert.run(`s${i}`, i + 1 < n ? `s${i + 1}` : "done", Date.now()))();
      ends.push(performance.now());
    }
    const totalMs = performance.now() - started;
    db.close();
    return { gaps: gapsOf(ends), totalMs };
  } finally {
    rmSync(root, RM);
  }
}

function gapsOf(ends: number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < ends.length; i++) out.push((ends[i] as number) - (ends[i - 1] as number));
  return out;
}

/**
 * The store with a stage's two writes left out: its record (`commitStage`, in or out of a
 * transaction) and its saved agent reply (`setMarker`). For the decomposition row only: what
 * fixpoint costs per stage besides writing, with every read and every other write as they are.
 */
function withoutStageWrites(store: Store): Store {
  const dropped = new Set(["commitStage", "setMarker"]);
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(o, prop, receiver) {
        if (typeof prop === "string" && dropped.has(prop)) return async () => null;
        const value: unknown = Reflect.get(o, prop, receiver);
        if (typeof value !== "function") return value;
        if (prop === "transaction") {
          return (fn: (tx: object) => Promise<unknown>, ...rest: unknown[]) =>
            Reflect.apply(value, o, [(tx: object) => fn(wrap(tx)), ...rest]);
        }
        return value.bind(o);
      },
    });
  return wrap(store);
}

/** The same chain through the worker `fixpoint work` runs: real engine, SQLite store, real git. */
export async function fixpointChain(
  n: number,
  edit: boolean,
  opts: { withoutStageWrites?: boolean; workflow?: string } = {},
): Promise<ChainTimes> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-chain-"));
  try {
    const repo = await gitRepo(root);
    const env = { ...GIT_ENV, HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh") };
    const config = await loadConfig({ projectRoot: repo, env, cwd: repo });
    const opened = await openStore("sqlite", repo);
    const store = opts.withoutStageWrites ? withoutStageWrites(opened) : opened;
    let count = 0;
    const agent = noopAgent(
      edit ? (cwd) => writeFileSync(join(cwd, "notes.txt"), `stage ${count++}\n`) : null,
    );
    const agents: AgentResolver = {
      resolve: (name) => ({ name, backend: agent, timeoutMs: 60_000, env: {}, extraArgs: [] }),
    };
    const workflow = parseWorkflow(opts.workflow ?? chainWorkflow(n), "bench:chain");
    const finished: number[] = [];
    const listener = (e: EngineEvent) => {
      if (e.type === "stage.finished") finished.push(performance.now());
    };
    const deps: EngineDeps = {
      store,
      git: createGit({
        env: GIT_ENV,
        ...(process.env.FIXPOINT_BENCH_GIT ? { gitPath: process.env.FIXPOINT_BENCH_GIT } : {}),
      }),
      agents,
      config,
      clock: systemClock,
      runner: createProcessRunner(),
      prompts: createPromptLibrary(repo, join(repoRoot(), "prompts")),
      fileExists: async () => true,
      loadWorkflow: async () => workflow,
      projectRoot: repo,
      reviewsDir: join(repo, ".fixpoint/reviews"),
      transcriptsDir: join(repo, ".fixpoint/transcripts"),
      listener,
      env,
    };
    await store.createTask(
      {
        type: "implement",
        title: "bench chain",
        prompt: "noop",
        workflow: "chain",
        repo,
        baseBranch: "main",
        maxCycles: 3,
      },
      Date.now(),
    );
    const started = performance.now();
    await runWorker(deps, { concurrency: 1, once: true, watch: false, signal: new AbortController().signal });
    const totalMs = performance.now() - started;
    // Without stage writes there is no checkpoint to load.
    const loaded = opts.withoutStageWrites ? {} : { loadMs: await timeCheckpointLoad(opened) };
    await store.close();
    if (finished.length < n) throw new Error(`chain of ${n} stopped after ${finished.length} stages`);
    return { gaps: gapsOf(finished), totalMs, ...loaded };
  } finally {
    rmSync(root, RM);
  }
}

/**
 * The median time to load the only task's last checkpoint as a resumed run does
 * (`loadRunState`: the checkpoint row and its counter snapshot pages, one counter per stage the
 * run visited), after warm-up loads.
 */
async function timeCheckpointLoad(store: Store): Promise<number> {
  const [task] = await store.listTasks();
  const run = task ? (await store.listRuns(task.id)).at(-1) : undefined;
  if (!task || !run) throw new Error("the chain left no run to load");
  const times: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const t0 = performance.now();
    const loaded = await loadRunState(store, task.id, run.id);
    times.push(performance.now() - t0);
    if (loaded === null) throw new Error(`run ${run.id} has no checkpoint`);
  }
  return median(times.slice(WARM_LOADS));
}

/**
 * Last tenth vs first tenth of a chain's per-stage times, as medians (the typical stage) and as
 * means (every stage's share of periodic work too: counter snapshots, SQLite's WAL checkpoints).
 * Flat means per-stage cost does not grow with the stage number.
 */
function growth(gaps: number[]): { median: number; mean: number } {
  // The exit stage's gap carries the run's end (its record with the task's finish, about 20 ms),
  // as the first stage carries the claim: neither is a stage's cost at its position.
  const times = gaps.length > 2 ? gaps.slice(0, -1) : gaps;
  const tenth = Math.max(1, Math.floor(times.length / 10));
  const [first, last] = [times.slice(0, tenth), times.slice(-tenth)];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { median: median(last) / median(first), mean: mean(last) / mean(first) };
}

/** The marginal-cost row needs chains at least this many stages apart. */
const MIN_SLOPE_SPAN = 50;

/**
 * Alternating rounds per size: enough samples at small sizes, bounded time at large ones (a
 * 3,000-stage chain that edits a file takes about 25 s, a no-op one about 1 s).
 */
function roundsFor(n: number, edit: boolean): number {
  return n <= 100 ? 5 : n <= 1_000 || !edit ? 3 : 1;
}

interface Measured {
  n: number;
  floor: ChainTimes[];
  ours: ChainTimes[];
}

/**
 * Floor and fixpoint alternately in the same process, so both see the same machine. Before any
 * measurement each runs one short chain untimed (module loading and the JIT's first compile are
 * start-up, not per-stage cost). Per size: the ratio of the per-stage medians, each stage timed
 * from the end of the stage before it to its own end (the first stage, which carries the
 * claim and the worktree's creation, is not a sample). Across sizes: the marginal cost per stage,
 * the slope of the whole chain's wall time between the smallest and the largest size. For the
 * largest no-op chain: the per-stage median of its last tenth over its first tenth.
 */
export async function benchChains(sizes: number[] = CHAIN_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const edit of [false, true]) {
    await floorChain(5, edit);
    await fixpointChain(5, edit);
    const measured: Measured[] = [];
    for (const n of sizes) {
      const m: Measured = { n, floor: [], ours: [] };
      for (let round = 0; round < roundsFor(n, edit); round++) {
        m.floor.push(await floorChain(n, edit));
        m.ours.push(await fixpointChain(n, edit));
      }
      measured.push(m);
      out.push(ratioRow(m, edit));
    }
    const [small, large] = [measured[0], measured.at(-1)];
    // A slope over a few stages is start-up noise (it can even come out negative).
    if (small && large && large.n - small.n >= MIN_SLOPE_SPAN) out.push(slopeRow(small, large, edit));
    if (!edit && large) out.push(growthRow(large));
    if (!edit && small && large && large.n > small.n) out.push(loadRow(small, large));
    if (!edit) out.push(await decompositionRow(sizes));
  }
  return out;
}

/**
 * Loading the checkpoint of the largest no-op chain against the smallest. The checkpoint row is
 * the same size at any length; what grows is the counter snapshot, one visit count and one
 * outcome per distinct stage the run reached (a chain visits each of its stages once; a loop of
 * the same length keeps only its own few), read in pages of PAGE_SIZE.
 */
function loadRow(small: Measured, large: Measured): BenchResult {
  const ms = (m: Measured) => median(m.ours.map((t) => t.loadMs ?? Number.NaN));
  const [a, b] = [ms(small), ms(large)];
  const perCounter = ((b - a) * 1000) / (large.n - small.n);
  return {
    name: `loading the checkpoint of a ${large.n.toLocaleString("en")}-stage no-op chain ÷ of a ${small.n.toLocaleString("en")}-stage one`,
    value: b / a,
    unit: "×",
    budget: "report",
    ok: true,
    detail: `median of ${LOADS - WARM_LOADS} loads per chain, median over the chains: ${a.toFixed(3)} ms at ${small.n.toLocaleString("en")} stages, ${b.toFixed(3)} ms at ${large.n.toLocaleString("en")} (${perCounter.toFixed(2)} µs per stage counted; the checkpoint row itself is the same size, the counter snapshot holds a count per distinct stage, ${Math.ceil(large.n / PAGE_SIZE)} pages of ${PAGE_SIZE})`,
  };
}

/** The size the decomposition row measures at: the largest measured up to 1,000 stages. */
function decompositionSize(sizes: number[]): number {
  return Math.max(...sizes.filter((n) => n <= 1_000), Math.min(...sizes));
}

/**
 * Where a no-op stage's time goes: fixpoint with and without the stage's two writes, and the
 * floor, alternately. Reported, not judged: it says how far the engine alone is from the floor.
 */
async function decompositionRow(sizes: number[]): Promise<BenchResult> {
  const n = decompositionSize(sizes);
  const floor: number[] = [];
  const whole: number[] = [];
  const unwritten: number[] = [];
  await fixpointChain(5, false, { withoutStageWrites: true });
  for (let round = 0; round < 3; round++) {
    floor.push(...(await floorChain(n, false)).gaps);
    whole.push(...(await fixpointChain(n, false)).gaps);
    unwritten.push(...(await fixpointChain(n, false, { withoutStageWrites: true })).gaps);
  }
  const [f, w, u] = [median(floor), median(whole), median(unwritten)];
  return {
    name: `per-stage time, chain of ${n.toLocaleString("en")} no-op stages, stage record and saved reply not written, ÷ floor`,
    value: u / f,
    unit: "×",
    budget: "report",
    ok: true,
    detail: `median per stage: fixpoint without the two writes ${u.toFixed(3)} ms, whole fixpoint ${w.toFixed(3)} ms (the writes: ${(w - u).toFixed(3)} ms), floor ${f.toFixed(3)} ms; 3 alternating rounds. The engine's own work per stage (choosing the next stage, the agent call, the worktree check from the files, the checkpoint's encoding, the redaction of what is written) is already ${(u / f).toFixed(1)}× the floor's one commit`,
  };
}

const what = (edit: boolean) => (edit ? "stages that each edit a file" : "no-op stages");
const floorWork = (edit: boolean) =>
  edit
    ? `1 SQLite commit + 1 git commit, started ${nativeStarter(process.env.FIXPOINT_SPAWN_HELPER) ? "with posix_spawn" : "by the spawner"} as fixpoint's`
    : "1 SQLite commit";

function ratioRow(m: Measured, edit: boolean): BenchResult {
  const f = median(m.floor.flatMap((t) => t.gaps));
  const o = median(m.ours.flatMap((t) => t.gaps));
  const ratio = o / f;
  return {
    name: `per-stage time, chain of ${m.n.toLocaleString("en")} ${what(edit)}, fixpoint ÷ floor`,
    value: ratio,
    unit: "×",
    budget: `≤ ${CHAIN_TARGET}×`,
    ok: ratio <= CHAIN_TARGET,
    detail: `median per stage: fixpoint ${o.toFixed(3)} ms, floor ${f.toFixed(3)} ms (${floorWork(edit)}); ${m.ours.length} alternating rounds`,
  };
}

/** Marginal cost per stage: how much longer the whole chain takes per stage added. */
function slopeRow(small: Measured, large: Measured, edit: boolean): BenchResult {
  const slope = (a: ChainTimes[], b: ChainTimes[]) =>
    (median(b.map((t) => t.totalMs)) - median(a.map((t) => t.totalMs))) / (large.n - small.n);
  const o = slope(small.ours, large.ours);
  const f = slope(small.floor, large.floor);
  const ratio = o / f;
  return {
    name: `marginal cost per stage, ${what(edit)}, chains of ${small.n.toLocaleString("en")} → ${large.n.toLocaleString("en")}, fixpoint ÷ floor`,
    value: ratio,
    unit: "×",
    budget: `≤ ${CHAIN_TARGET}×`,
    ok: ratio <= CHAIN_TARGET,
    detail: `slope of the whole run's wall time: fixpoint ${o.toFixed(3)} ms/stage (whole \`fixpoint work\` run: worker start, claim, worktree, every stage, the end), floor ${f.toFixed(3)} ms/stage`,
  };
}

/** Judged by the larger of the two ratios (medians, means). */
function growthRow(m: Measured): BenchResult {
  const each = m.ours.map((t) => growth(t.gaps));
  const med = median(each.map((g) => g.median));
  const mean = median(each.map((g) => g.mean));
  const g = Math.max(med, mean);
  return {
    name: `per-stage time at the end ÷ start of a ${m.n.toLocaleString("en")}-stage no-op chain`,
    value: g,
    unit: "×",
    budget: `≤ ${CHAIN_TARGET}×`,
    ok: g <= CHAIN_TARGET,
    detail: `last tenth of the stages over the first tenth, through \`fixpoint work\` (constant-size checkpoints): medians ${med.toFixed(2)}×, means ${mean.toFixed(2)}×; ${m.ours.length} run${m.ours.length === 1 ? "" : "s"}`,
  };
}
