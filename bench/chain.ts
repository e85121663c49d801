import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { createScriptedBackend } from "../src/agents/scripted.js";
import { loadConfig } from "../src/config/load.js";
import type { AgentResolver } from "../src/domain/agent.js";
import type { EngineDeps } from "../src/engine/deps.js";
import type { EngineEvent } from "../src/engine/events.js";
import { createPromptLibrary } from "../src/engine/prompts.js";
import { runWorker } from "../src/engine/worker.js";
import { createGit } from "../src/git/git-cli.js";
import { openStore } from "../src/store/open.js";
import { systemClock } from "../src/util/clock.js";
import { createProcessRunner } from "../src/util/process-runner.js";
import { parseWorkflow } from "../src/workflow/parse.js";
import { type BenchResult, median, repoRoot } from "./util.js";

const run = promisify(execFile);

/** Issue 10 (a): chains of no-op stages, and of stages that each edit one file. */
export const CHAIN_SIZES = [10, 100, 1_000, 3_000];
/** fixpoint's per-stage time may be at most this multiple of the floor's. */
export const CHAIN_TARGET = 1.5;

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@localhost",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@localhost",
  // No background `git gc --auto` after hundreds of commits: it would race the cleanup.
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "gc.auto",
  GIT_CONFIG_VALUE_0: "0",
};
const RM = { recursive: true, force: true, maxRetries: 5, retryDelay: 200 } as const;

function chainWorkflow(n: number): string {
  const stages = Array.from(
    { length: n },
    (_, i) => `    stage "s${i}" kind="agent" agent="implementer" prompt="implement"`,
  );
  const transitions = Array.from(
    { length: n },
    (_, i) => `    transition from="s${i}" to="${i + 1 < n ? `s${i + 1}` : "done"}"`,
  );
  return `workflow "chain" {\n    start "s0"\n${stages.join("\n")}\n    stage "done" kind="exit"\n${transitions.join("\n")}\n}\n`;
}

async function gitRepo(root: string): Promise<string> {
  const repo = join(root, "repo");
  await run("git", ["init", "-q", "-b", "main", repo], { env: GIT_ENV });
  writeFileSync(join(repo, "notes.txt"), "start\n");
  await run("git", ["add", "-A"], { cwd: repo, env: GIT_ENV });
  await run("git", ["commit", "-q", "-m", "init"], { cwd: repo, env: GIT_ENV });
  return repo;
}

/**
 * The floor: what any tool must do per stage. One SQLite WAL commit recording the stage and, when
 * the stage changed a file, one `git commit` of it. Returns each stage's time in ms.
 */
export async function floorChain(n: number, edit: boolean): Promise<number[]> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-floor-"));
  try {
    const repo = await gitRepo(root);
    const db = new Database(join(root, "floor.db"));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec("CREATE TABLE stages (id INTEGER PRIMARY KEY, stage TEXT NOT NULL, at INTEGER NOT NULL)");
    const insert = db.prepare("INSERT INTO stages (stage, at) VALUES (?, ?)");
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      if (edit) {
        writeFileSync(join(repo, "notes.txt"), `stage ${i}\n`);
        await run("git", ["commit", "-q", "-a", "-m", `stage ${i}`], { cwd: repo, env: GIT_ENV });
      }
      db.transaction(() => insert.run(`s${i}`, Date.now()))();
      times.push(performance.now() - start);
    }
    db.close();
    return times;
  } finally {
    rmSync(root, RM);
  }
}

/** The same chain through the worker `fixpoint work` runs: real engine, SQLite store, real git. */
export async function fixpointChain(n: number, edit: boolean): Promise<number[]> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-chain-"));
  try {
    const repo = await gitRepo(root);
    const env = { ...GIT_ENV, HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh") };
    const config = await loadConfig({ projectRoot: repo, env, cwd: repo });
    const store = await openStore("sqlite", repo);
    let count = 0;
    const agent = createScriptedBackend((req) => {
      if (edit) writeFileSync(join(req.cwd, "notes.txt"), `stage ${count++}\n`);
      return { text: "ok" };
    });
    const agents: AgentResolver = {
      resolve: (name) => ({ name, backend: agent, timeoutMs: 60_000, env: {}, extraArgs: [] }),
    };
    const workflow = parseWorkflow(chainWorkflow(n), "bench:chain");
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
    await runWorker(deps, { concurrency: 1, once: true, watch: false, signal: new AbortController().signal });
    await store.close();
    if (finished.length < n) throw new Error(`chain of ${n} stopped after ${finished.length} stages`);
    const times: number[] = [];
    for (let i = 1; i < finished.length; i++)
      times.push((finished[i] as number) - (finished[i - 1] as number));
    return times;
  } finally {
    rmSync(root, RM);
  }
}

/** Per-stage medians, last tenth vs first tenth: flat means per-stage cost does not grow with the stage number. */
function growth(times: number[]): number {
  const tenth = Math.max(1, Math.floor(times.length / 10));
  return median(times.slice(-tenth)) / median(times.slice(0, tenth));
}

/**
 * Floor and fixpoint alternately in the same process, twice each per size, so both see the same
 * machine; the result is the ratio of their per-stage medians.
 */
export async function benchChains(sizes: number[] = CHAIN_SIZES): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const edit of [false, true]) {
    for (const n of sizes) {
      const floor: number[] = [];
      const ours: number[] = [];
      let grows = 0;
      for (let round = 0; round < 2; round++) {
        floor.push(...(await floorChain(n, edit)));
        const t = await fixpointChain(n, edit);
        ours.push(...t);
        grows = Math.max(grows, growth(t));
      }
      const f = median(floor);
      const o = median(ours);
      const ratio = o / f;
      out.push({
        name: `per-stage time, chain of ${n.toLocaleString("en")} ${edit ? "stages that each edit a file" : "no-op stages"}, fixpoint ÷ floor`,
        value: ratio,
        unit: "×",
        budget: `≤ ${CHAIN_TARGET}×`,
        ok: ratio <= CHAIN_TARGET,
        detail: `median per stage: fixpoint ${o.toFixed(2)} ms, floor ${f.toFixed(2)} ms (${edit ? "1 SQLite commit + 1 git commit" : "1 SQLite commit"}); last/first tenth of the chain ${grows.toFixed(2)}×; 2 alternating rounds`,
      });
    }
  }
  return out;
}
