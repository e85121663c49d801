import type { Task } from "../domain/types.js";
import type { Registry } from "../findings/registry.js";
import type { Workflow } from "../workflow/types.js";
import type { BranchSync } from "./branch-sync.js";
import type { CounterLog } from "./checkpoint.js";
import type { EngineDeps } from "./deps.js";
import type { HeldReply } from "./held-reply.js";
import type { PendingWrites } from "./pending-writes.js";
import type { RunState } from "./state.js";
import type { TaskPosition } from "./task-position.js";

/** What every part of one run shares: the task, its run, workflow, registry and worktree. */
export interface RunEnv {
  task: Task;
  runId: number;
  workflow: Workflow;
  registry: Registry;
  workdir: string;
  deps: EngineDeps;
  /** Which checkpoint counters changed since the run's last snapshot (see checkpoint.ts). */
  counters: CounterLog;
  /** Pushes the task branch before each checkpoint; absent without a push remote (branch-sync.ts). */
  branch?: BranchSync;
  /**
   * `process.env` as the run began, which the run's records (stage summaries, failure reasons, the
   * run's reason) are redacted against: read once, not for each stage (scanning `process.env`
   * was 85 µs of a 1 ms stage; docs/benchmarks.md). fixpoint never changes its own environment.
   */
  redactEnv: NodeJS.ProcessEnv;
  /** Files the run's stages write in the background; the run waits for them before it returns. */
  writes: PendingWrites;
  /** The task row's current stage and cycle, written at most every 250 ms (task-position.ts). */
  position: TaskPosition;
  /**
   * For a run this process created: the keys of the turns it saved, the only ones the run has, so
   * a stage need not look for saved turns under any other key. Null for a run that existed before.
   */
  savedTurns: Set<string> | null;
  /** The reply of the stage in progress that goes into its record (held-reply.ts). */
  reply: HeldReply;
}

/** How a run ended, before it is turned into a verdict. */
export type RunEnd =
  | { kind: "exit"; stageId: string | null; forced?: string; reason?: string }
  | { kind: "stopped"; reason: string; stageId?: string | null; cause?: unknown }
  | { kind: "interrupted"; reason: string; stageId: string | null }
  | { kind: "budget"; stageId: string }
  | { kind: "paused"; reason: string };

/** Cycles counted from the run lineage's base (a review-feedback resume starts again at 1). */
export function relCycle(state: Pick<RunState, "cycle" | "cycleBase">): number {
  return state.cycle - (state.cycleBase ?? 0);
}

/** The abort reason a worker gives when its lease on the task was taken over. */
export const LEASE_LOST = "lease lost";

/** How a run ends when its worker drains (SIGTERM): nothing written, the task goes back to the queue. */
export const DRAINED = "worker draining";
