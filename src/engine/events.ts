import type { FinalVerdict, StageOutcome } from "../domain/types.js";

/**
 * Typed events the engine emits while it works: the CLI turns them into progress lines, tests
 * wait on them instead of sleeping. Listeners must not throw.
 */
export type EngineEvent =
  | { type: "task.started"; taskId: string; title: string; runId: number; resumed: boolean }
  | { type: "stage.started"; taskId: string; stageId: string; kind: string; cycle: number; maxCycles: number }
  | {
      type: "stage.finished";
      taskId: string;
      stageId: string;
      kind: string;
      cycle: number;
      maxCycles: number;
      outcome: StageOutcome;
      summary: string | null;
      durationMs: number;
      costUsd: number;
      failureReason: string | null;
    }
  | {
      type: "agent.progress";
      taskId: string;
      stageId: string;
      message: string;
      costUsd?: number;
      /** The provider began its answer (AgentProgress.responseStarted). */
      responseStarted?: true;
    }
  | { type: "notice"; taskId: string; message: string }
  /** The task stopped at a `human` stage and waits for approve/reject (status needs_human). */
  | { type: "task.paused"; taskId: string; stageId: string; reason: string }
  | {
      type: "task.finished";
      taskId: string;
      verdict: FinalVerdict | null;
      status: string;
      reason: string | null;
      cycles: number;
      branch: string | null;
      costUsd: number;
    };

export type EngineListener = (event: EngineEvent) => void;
