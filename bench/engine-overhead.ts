import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedBackend } from "../src/agents/scripted.js";
import { loadConfig } from "../src/config/load.js";
import type { AgentResolver } from "../src/domain/agent.js";
import type { Git } from "../src/domain/git.js";
import type { EngineDeps } from "../src/engine/deps.js";
import type { EngineEvent } from "../src/engine/events.js";
import { createPromptLibrary } from "../src/engine/prompts.js";
import { runWorker } from "../src/engine/worker.js";
import { openStore } from "../src/store/open.js";
import { systemClock } from "../src/util/clock.js";
import { createProcessRunner } from "../src/util/process-runner.js";
import { parseWorkflow } from "../src/workflow/parse.js";
import { type BenchResult, chainWorkflow, median } from "./util.js";

const STAGES = 300;

/** A Git that does nothing: the benchmark measures the engine and its SQLite checkpoints, not git. */
const noGit: Git = {
  repoRoot: async (cwd) => cwd,
  currentBranch: async () => "main",
  headSha: async () => "0".repeat(40),
  revParse: async () => "0".repeat(40),
  branchExists: async () => true,
  status: async () => [],
  ensureWorktree: async ({ path }) => {
    mkdirSync(path, { recursive: true });
    return { path, created: false };
  },
  removeWorktree: async () => "removed",
  listWorktrees: async () => [],
  commitAll: async () => null,
  commitsBetween: async () => [],
  diff: async () => "",
  changedFiles: async () => [],
  isBranchSafeToDelete: async () => false,
  deleteBranch: async () => undefined,
  deleteBranchesIfSafe: async () => [],
  checkout: async () => undefined,
  trackedFiles: async () => [],
  // No remote: a chain in the benchmark never pushes or takes a task over from another clone.
  remoteBranchSha: async () => null,
  fetchBranch: async () => null,
  pushWithLease: async () => undefined,
  isAncestor: async () => true,
  resetHard: async () => undefined,
};

/** Engine overhead per stage: a chain of agent stages with a no-op agent, real SQLite checkpoints. */
export async function benchEngineOverhead(): Promise<BenchResult> {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-bench-"));
  const env = { HOME: join(root, "home"), FIXPOINT_HOME: join(root, "fh"), PATH: process.env.PATH };
  const config = await loadConfig({ projectRoot: root, env, cwd: root });
  const store = await openStore("sqlite", root);
  const noop = createScriptedBackend(() => ({ text: "ok" }));
  const agents: AgentResolver = {
    resolve: (name) => ({ name, backend: noop, timeoutMs: 60_000, env: {}, extraArgs: [] }),
  };
  const workflow = parseWorkflow(chainWorkflow(STAGES), "bench:chain");
  const finished: number[] = [];
  const listener = (e: EngineEvent) => {
    if (e.type === "stage.finished") finished.push(performance.now());
  };
  const deps: EngineDeps = {
    store,
    git: noGit,
    agents,
    config,
    clock: systemClock,
    runner: createProcessRunner(),
    prompts: createPromptLibrary(root, fileURLToPath(new URL("../../prompts/", import.meta.url))),
    fileExists: async () => true,
    loadWorkflow: async () => workflow,
    projectRoot: root,
    reviewsDir: join(root, ".fixpoint/reviews"),
    transcriptsDir: join(root, ".fixpoint/transcripts"),
    listener,
    env,
  };
  const perStage: number[] = [];
  for (let round = 0; round < 3; round++) {
    finished.length = 0;
    await store.createTask(
      {
        type: "implement",
        title: `bench ${round}`,
        prompt: "noop",
        workflow: "chain",
        repo: root,
        baseBranch: "main",
        maxCycles: 3,
      },
      Date.now(),
    );
    await runWorker(deps, { concurrency: 1, once: true, watch: false, signal: new AbortController().signal });
    for (let i = 1; i < finished.length; i++)
      perStage.push((finished[i] as number) - (finished[i - 1] as number));
  }
  await store.close();
  rmSync(root, { recursive: true, force: true });
  const m = median(perStage);
  return {
    name: "engine overhead per stage (no-op agent, SQLite checkpoint), median",
    value: m,
    unit: "ms",
    budget: "≤ 2 ms",
    ok: m <= 2,
    detail: `${perStage.length} stages over 3 runs of a ${STAGES}-stage workflow; p90 ${percentile(perStage, 0.9).toFixed(3)} ms`,
  };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}
