import type { Config } from "../config/types.js";
import type { AgentResolver } from "../domain/agent.js";
import type { Clock } from "../domain/clock.js";
import type { Git } from "../domain/git.js";
import type { GroupScope, ProcessRunner } from "../domain/process.js";
import type { Lease, Store } from "../domain/store.js";
import type { Task } from "../domain/types.js";
import type { Registry } from "../findings/registry.js";
import type { StageDef, Workflow } from "../workflow/types.js";
import type { Effect } from "./effects.js";
import type { EngineListener } from "./events.js";
import type { HeldReply } from "./held-reply.js";
import type { LeaseKeeper } from "./lease-keeper.js";
import type { PendingWrites } from "./pending-writes.js";
import type { PromptLibrary } from "./prompts.js";
import type { RunState } from "./state.js";

/** Everything the engine touches in the outside world, passed in (the core imports no adapter). */
export interface EngineDeps {
  store: Store;
  git: Git;
  agents: AgentResolver;
  config: Config;
  clock: Clock;
  /** Runs gate commands. */
  runner: ProcessRunner;
  /** The running task's process groups (its worker records them; see agent-groups.ts). */
  groups?: GroupScope;
  prompts: PromptLibrary;
  /** Worktree-confined existence check for findings' files. */
  fileExists: (root: string, relPath: string) => Promise<boolean>;
  /** Loads a workflow by name for a task. */
  loadWorkflow: (name: string) => Promise<Workflow>;
  projectRoot: string;
  /** Where review artifacts go: `<projectRoot>/.fixpoint/reviews`. */
  reviewsDir: string;
  /** Where agent transcripts go. */
  transcriptsDir: string;
  listener: EngineListener;
  /** Extra handlers by stage kind (e.g. `github`), registered by the CLI. */
  extraHandlers?: Partial<Record<string, StageHandler>>;
  /** Environment the agents inherit (default process.env). */
  env: NodeJS.ProcessEnv;
  /** The lease this run holds: every write of the run is fenced by it (see StageCommit.fence). */
  lease?: Lease;
  /** How long `lease` lasts from a renewal; a push to the remote renews it first (branch-sync.ts). */
  leaseMs?: number;
  /** Renews leases while tasks run (default: timers on the engine's thread; see lease-keeper.ts). */
  leaseKeeper?: LeaseKeeper;
}

export interface StageContext {
  task: Task;
  runId: number;
  workflow: Workflow;
  /** A copy of the run state at stage start; handlers read it, never write it. */
  state: Readonly<RunState>;
  registry: Registry;
  visit: number;
  /** The task's worktree. */
  workdir: string;
  signal: AbortSignal;
  deps: EngineDeps;
  /** The run's writes off the critical path (agent transcripts' files); absent: none deferred. */
  writes?: PendingWrites;
  /** RunEnv.savedTurns: absent or null, saved turns are looked for in the store. */
  savedTurns?: Set<string> | null;
  /**
   * RunEnv.reply, for a stage the engine records itself (not a parallel block's child): its agent's
   * reply is held for the stage's record (held-reply.ts). Absent: each reply is saved as the agent exits.
   */
  reply?: HeldReply;
}

export interface StageResult {
  outcome: "success" | "fail" | "partial_success" | "retry" | "skipped";
  failureClass?: import("../domain/types.js").FailureClass;
  failureReason?: string;
  effect: Effect;
  usage: import("../domain/types.js").TokenUsage;
  costUsd: number;
  sessionId?: string | null;
  agent?: string | null;
  /** Agent attempts including protocol retries. */
  attempts: number;
  summary?: string | null;
  /** A human stage waiting for an answer: the run pauses here. */
  pause?: { reason: string };
  headBefore?: string | null;
  headAfter?: string | null;
  /** Extra events, recorded in the stage's transaction (e.g. the commits an agent made itself). */
  events?: { type: string; data: import("../domain/types.js").JsonObject }[];
  /** Context keys to set. */
  context?: Record<string, string | number | boolean | null>;
}

export interface StageHandler {
  run(stage: StageDef, ctx: StageContext): Promise<StageResult>;
}
