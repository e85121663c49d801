import { join } from "node:path";
import { afterEach } from "vitest";
import { createScriptedBackend, type ScriptHandler } from "../../src/agents/scripted.js";
import type { Project } from "../../src/app/project.js";
import type { AgentBackend, AgentRequest, AgentResolver } from "../../src/domain/agent.js";
import type { Finding, Run, StageExecution, Task, TaskEvent } from "../../src/domain/types.js";
import { listReviewArtifacts } from "../../src/engine/artifacts.js";
import type { EngineDeps } from "../../src/engine/deps.js";
import type { EngineEvent } from "../../src/engine/events.js";
import { createPromptLibrary } from "../../src/engine/prompts.js";
import { runWorker, type WorkerSummary } from "../../src/engine/worker.js";
import { FixpointError } from "../../src/errors.js";
import { createGit } from "../../src/git/git-cli.js";
import { fileExistsInside } from "../../src/git/safe-path.js";
import { systemClock } from "../../src/util/clock.js";
import { createProcessRunner } from "../../src/util/process-runner.js";
import { loadWorkflow } from "../../src/workflow/loader.js";
import { createTempProject, type ProjectSettings, type TempProject } from "./engine-project.js";

/** One request an agent received, in order, with what it was for. */
export interface AgentCall {
  agent: string;
  taskId: string;
  stageId: string;
  cycle: number;
  prompt: string;
  sessionId: string | undefined;
  req: AgentRequest;
}

export interface HarnessOptions extends Omit<ProjectSettings, "agents"> {
  /** Scripted handler per configured agent name (`implementer`, `reviewer`, `fixer`, …). */
  agents: Record<string, ScriptHandler>;
}

export interface AddTaskOptions {
  title?: string;
  prompt?: string;
  workflow?: string;
  maxCycles?: number;
}

export interface EngineHarness extends TempProject {
  deps: EngineDeps;
  /** Every agent request, in the order they arrived. */
  calls: AgentCall[];
  callsOf(agent: string, filter?: { taskId?: string; stageId?: string }): AgentCall[];
  /** Every engine event, in order. */
  engineEvents: EngineEvent[];
  /** Adds a listener for engine events (e.g. to abort mid-stage); returns its remover. */
  listen(fn: (e: EngineEvent) => void): () => void;
  addTask(opts?: AddTaskOptions): Promise<Task>;
  /** Runs `fixpoint work` in process: every queued task, one at a time, real clock. */
  runAll(opts?: { signal?: AbortSignal; ids?: string[] }): Promise<WorkerSummary>;
  task(id: string): Promise<Task>;
  registry(id: string): Promise<Finding[]>;
  events(id: string): Promise<TaskEvent[]>;
  stages(id: string): Promise<StageExecution[]>;
  runs(id: string): Promise<Run[]>;
  /** Subjects of the task branch's own commits (not on `main`), oldest first. */
  branchLog(id: string): Promise<string[]>;
  reviewArtifact(id: string, cycle: number): Promise<string>;
  /** The Project the CLI commands take (for `prepareResume`). */
  project(): Project;
  close(): Promise<void>;
}

/** Scripted backends per agent, each recording what it was asked; timeouts come from fixpoint.kdl. */
function recordingResolver(
  p: TempProject,
  handlers: Record<string, ScriptHandler>,
  calls: AgentCall[],
): AgentResolver {
  const backends = new Map<string, AgentBackend>();
  for (const [name, handler] of Object.entries(handlers)) {
    backends.set(
      name,
      createScriptedBackend((req, ctx) => {
        calls.push({
          agent: name,
          taskId: req.taskId,
          stageId: req.stageId,
          cycle: req.cycle,
          prompt: req.prompt,
          sessionId: req.sessionId,
          req,
        });
        return handler(req, ctx);
      }),
    );
  }
  return {
    resolve(name) {
      const agent = p.config.agents[name];
      const backend = backends.get(name);
      if (!agent || !backend) throw new FixpointError("config", `the harness has no agent \`${name}\``);
      return {
        name,
        backend,
        model: agent.model,
        timeoutMs: agent.timeoutMs,
        env: agent.env,
        extraArgs: agent.args,
      };
    },
  };
}

/**
 * For a test file whose tests each make one harness: returns the function that makes it, and
 * closes the one made by a test after that test (also when it fails).
 */
export function harnessPerTest(): (opts: HarnessOptions) => Promise<EngineHarness> {
  let current: EngineHarness | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (opts) => {
    current = await createEngineHarness(opts);
    return current;
  };
}

export async function createEngineHarness(opts: HarnessOptions): Promise<EngineHarness> {
  const p = await createTempProject({ ...opts, agents: Object.keys(opts.agents) });
  const calls: AgentCall[] = [];
  const engineEvents: EngineEvent[] = [];
  const listeners = new Set<(e: EngineEvent) => void>();
  const git = createGit({ env: p.env });
  const dir = join(p.root, ".fixpoint");
  const deps: EngineDeps = {
    store: p.store,
    git,
    agents: recordingResolver(p, opts.agents, calls),
    config: p.config,
    clock: systemClock,
    runner: createProcessRunner(),
    prompts: createPromptLibrary(p.root),
    fileExists: fileExistsInside,
    loadWorkflow: (name) => loadWorkflow(name, p.root),
    projectRoot: p.root,
    reviewsDir: join(dir, "reviews"),
    transcriptsDir: join(dir, "transcripts"),
    listener: (e) => {
      engineEvents.push(e);
      for (const fn of listeners) fn(e);
    },
    env: p.env,
  };
  const task = async (id: string): Promise<Task> => {
    const t = await p.store.getTask(id);
    if (!t) throw new Error(`no task ${id}`);
    return t;
  };
  const project: Project = {
    root: p.root,
    config: p.config,
    store: p.store,
    git,
    dir,
    close: () => p.store.close(),
  };

  return {
    ...p,
    deps,
    calls,
    callsOf: (agent, filter = {}) =>
      calls.filter(
        (c) =>
          c.agent === agent &&
          (filter.taskId === undefined || c.taskId === filter.taskId) &&
          (filter.stageId === undefined || c.stageId === filter.stageId),
      ),
    engineEvents,
    listen(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    addTask: (o = {}) =>
      p.store.createTask(
        {
          type: "implement",
          title: o.title ?? "Add double()",
          prompt: o.prompt ?? "Add a function double(x) in src/feature.js.",
          workflow: o.workflow ?? p.config.defaults.workflow,
          repo: p.root,
          baseBranch: "main",
          maxCycles: o.maxCycles ?? p.config.defaults.maxCycles,
          budget: p.config.defaults.budget,
          agents: {},
        },
        Date.now(),
      ),
    runAll: (o = {}) =>
      runWorker(deps, {
        concurrency: 1,
        once: false,
        watch: false,
        ids: o.ids,
        signal: o.signal ?? new AbortController().signal,
      }),
    task,
    registry: (id) => p.store.listFindings(id),
    events: (id) => p.store.listEvents(id),
    stages: (id) => p.store.listStageExecutions(id),
    runs: (id) => p.store.listRuns(id),
    async branchLog(id) {
      const t = await task(id);
      if (!t.branch) return [];
      const out = p.repo.git(["log", "--reverse", "--format=%s", `main..${t.branch}`]);
      return out === "" ? [] : out.split("\n");
    },
    // The latest run's artifact of that cycle (a path that does not exist when there is none).
    reviewArtifact: async (id, cycle) =>
      listReviewArtifacts(join(dir, "reviews"), id, await p.store.artifactNames(id, "review"))
        .filter((a) => a.cycle === cycle)
        .at(-1)?.path ?? join(dir, "reviews", `${id}-r0-review-${cycle}.md`),
    project: () => project,
    async close() {
      await p.store.close();
      p.repo.cleanup();
    },
  };
}
