import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { ConfigFlags } from "../config/load.js";
import type { AgentBackend } from "../domain/agent.js";
import type { Clock } from "../domain/clock.js";
import type { Git } from "../domain/git.js";
import type { Notifier } from "../domain/notifier.js";
import type { Store } from "../domain/store.js";
import type { EngineListener } from "../engine/events.js";
import { addTask } from "./add-task.js";
import { cancelTask } from "./cancel.js";
import { checkoutTask } from "./checkout.js";
import { cleanTasks } from "./clean.js";
import type { AppContext } from "./context.js";
import { editTask } from "./edit-task.js";
import { fileIssues } from "./file-issues.js";
import { deferFinding, dismissFinding, reopenFinding } from "./finding-status.js";
import { listFindings } from "./findings.js";
import { projectGithub } from "./github.js";
import { approve, reject } from "./human.js";
import { improveTask } from "./improve.js";
import { excludeFixpointDir } from "./init.js";
import { addLearning, listLearnings, removeLearning } from "./learnings.js";
import { taskEvents, taskTranscripts } from "./logs.js";
import { finishPrRework, openPr, reworkPr } from "./pr.js";
import { contextOf, findRepoRoot, isInitialised, openProject } from "./project.js";
import { resumeTask } from "./resume.js";
import { retryTask } from "./retry.js";
import { showTask } from "./show.js";
import { listTasks, type StatusQuery } from "./status.js";
import { parseInput } from "./validate.js";
import { type WorkInput, work } from "./work.js";

const port = (what: string, methods: string[]) =>
  z.custom<unknown>(
    (v) =>
      typeof v === "object" &&
      v !== null &&
      methods.every((m) => typeof (v as Record<string, unknown>)[m] === "function"),
    `must be ${what} (an object with ${methods.map((m) => `${m}()`).join(", ")})`,
  );

const Options = z
  .object({
    /** A directory inside the project's git checkout (default `process.cwd()`). */
    cwd: z.string().min(1).optional(),
    /** Same as `cwd`; the name reads better when you pass the repository root. */
    projectRoot: z.string().min(1).optional(),
    /** A store of your own (you close it); default: the project's configured store. */
    store: port("a Store", ["transaction", "getTask", "createTask", "close"]).optional(),
    /** Agent name → your own AgentBackend, used instead of the configured backend of that name. */
    agents: z.record(port("an AgentBackend", ["run"])).optional(),
    clock: port("a Clock", ["now", "sleep"]).optional(),
    git: port("a Git", ["repoRoot", "headSha", "commitAll"]).optional(),
    /** Overrides of the configuration, highest layer (like the CLI's flags). */
    config: z
      .object({
        workflow: z.string().optional(),
        maxCycles: z.number().optional(),
        blockingSeverity: z.string().optional(),
        budgetUsd: z.number().optional(),
        budgetTokens: z.number().optional(),
        followups: z.boolean().optional(),
        baseBranch: z.string().optional(),
        database: z.string().optional(),
        worktrees: z.string().optional(),
      })
      .strict()
      .optional(),
    /** The environment agents, gates and the GitHub client see (default `process.env`). */
    env: z.record(z.string().optional()).optional(),
    /** Who acts, recorded on every event (default: the OS user). */
    actor: z.string().min(1).optional(),
    notifier: port("a Notifier", ["notify"]).optional(),
    /**
     * Create `.fixpoint/` (excluded from git) when the repository has none; default true. With
     * false, a repository that was never `fixpoint init`ed is an error.
     */
    init: z.boolean().optional(),
  })
  .strict();

export interface FixpointOptions {
  cwd?: string;
  projectRoot?: string;
  store?: Store;
  agents?: Record<string, AgentBackend>;
  clock?: Clock;
  git?: Git;
  config?: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  actor?: string;
  notifier?: Notifier;
  init?: boolean;
}

/** Every use case bound to one project's store, git, configuration and clock. */
export type Fixpoint = Awaited<ReturnType<typeof createFixpoint>>;

/**
 * Opens a project for use from code: the library's entry point. The CLI runs on the same use
 * cases. A malformed option is a `FixpointError` ("usage") naming it. Call `close()` when done.
 */
export async function createFixpoint(options: FixpointOptions = {}) {
  parseInput("createFixpoint", Options, options);
  const cwd = resolve(options.projectRoot ?? options.cwd ?? process.cwd());
  if (options.init !== false) await ensureFixpointDir(cwd, options.git);
  const project = await openProject(cwd, {
    ...(options.config ? { flags: options.config } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.git ? { git: options.git } : {}),
    ...(options.store ? { store: options.store } : {}),
  });
  const ctx: AppContext = {
    ...contextOf(project, { env: options.env, clock: options.clock, actor: options.actor }),
    ...(options.notifier ? { notifier: options.notifier } : {}),
  };
  const wiring = options.agents ? { agents: options.agents } : {};
  return {
    root: ctx.root,
    config: ctx.config,
    store: ctx.store,
    addTask: (input: Parameters<typeof addTask>[1]) => addTask(ctx, input),
    /** Runs queued tasks (all, or `ids`) to their verdicts in this process. */
    work: (input: WorkInput = {}, opts: { signal?: AbortSignal; listener?: EngineListener } = {}) =>
      work(ctx, input, { ...opts, wiring }),
    status: (input: StatusQuery = {}) => listTasks(ctx, input),
    show: (task: string) => showTask(ctx, task),
    findings: (input: Parameters<typeof listFindings>[1]) => listFindings(ctx, input),
    /** Dismisses a finding with a reason; the reason becomes a learning unless `learn: false`. */
    dismissFinding: (input: Parameters<typeof dismissFinding>[1]) => dismissFinding(ctx, input),
    reopenFinding: (input: Parameters<typeof reopenFinding>[1]) => reopenFinding(ctx, input),
    deferFinding: (input: Parameters<typeof deferFinding>[1]) => deferFinding(ctx, input),
    learnings: (input: Parameters<typeof listLearnings>[1] = {}) => listLearnings(ctx, input),
    /** A person's learning; `path` (a glob) must match a tracked file. */
    addLearning: (input: Parameters<typeof addLearning>[1]) => addLearning(ctx, input),
    removeLearning: (id: string) => removeLearning(ctx, { id }),
    logs: (input: { task: string; afterId?: number }) => taskEvents(ctx, input),
    transcripts: (task: string) => taskTranscripts(ctx, task),
    approve: (input: { task: string; reason?: string }) => approve(ctx, input),
    reject: (input: { task: string; reason: string }) => reject(ctx, input),
    cancel: (task: string) => cancelTask(ctx, task),
    /** Continues a task; `feedback` becomes an open blocking finding the fix loop must answer. */
    resume: (input: Parameters<typeof resumeTask>[1]) => resumeTask(ctx, input),
    retry: (input: Parameters<typeof retryTask>[1]) => retryTask(ctx, input),
    improve: (input: Parameters<typeof improveTask>[1]) => improveTask(ctx, input),
    editTask: (input: Parameters<typeof editTask>[1]) => editTask(ctx, input),
    clean: (input: Parameters<typeof cleanTasks>[1] = {}) => cleanTasks(ctx, input),
    /** The task's branch in the main checkout, or (`worktree`) its worktree's path; refusals are data. */
    checkout: (task: string, opts: { worktree?: boolean } = {}) => checkoutTask(ctx, task, opts),
    openPr: async (task: string) => openPr(ctx, await projectGithub(ctx), task),
    /** Creates or continues the PR's rework task; run it with `work({ ids: [task.id] })`. */
    reworkPr: async (prNumber: number) => reworkPr(ctx, await projectGithub(ctx), prNumber),
    finishPrRework: async (taskId: string) => finishPrRework(ctx, await projectGithub(ctx), taskId),
    fileIssues: async (task: string) => fileIssues(ctx, await projectGithub(ctx), task),
    close: () => project.close(),
  };
}

/** `.fixpoint/` (owner-only, excluded from git) for a repository used from code without `init`. */
async function ensureFixpointDir(cwd: string, git: Git | undefined): Promise<void> {
  const root = await findRepoRoot(cwd, git);
  if (isInitialised(root)) return;
  await excludeFixpointDir(root);
  await mkdir(join(root, ".fixpoint"), { recursive: true, mode: 0o700 });
}
