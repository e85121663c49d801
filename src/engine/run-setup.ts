import { branchName, worktreePath } from "../domain/naming.js";
import type { Run, Task } from "../domain/types.js";
import type { Workflow } from "../workflow/types.js";
import { type CounterLog, loadRunState, newCounterLog } from "./checkpoint.js";
import { getCount } from "./counters.js";
import { crashPoint } from "./crash-points.js";
import type { EngineDeps } from "./deps.js";
import type { RunEnd } from "./run-env.js";
import { initialRunState, type RunState, stateToJson } from "./state.js";
import { exitReason } from "./step.js";

/**
 * Makes sure the task has its worktree (created once, reused for the whole loop and across
 * resumes, recreated from the branch when the folder is gone) and returns its path.
 */
export async function ensureTaskWorktree(task: Task, deps: EngineDeps): Promise<Task> {
  const branch = task.branch ?? branchName(task.id, task.title);
  const path = task.worktreePath ?? worktreePath(deps.config.worktrees, task.repo, task.id);
  const wt = await deps.git.ensureWorktree({ repo: task.repo, path, branch, base: task.baseBranch });
  if (task.branch === branch && task.worktreePath === wt.path) return task;
  return deps.store.transaction(
    (tx) => tx.updateTask(task.id, { branch, worktreePath: wt.path }, deps.clock.now()),
    { fence: deps.lease },
  );
}

export interface RunPlan {
  run: Run;
  state: RunState;
  /** True when an interrupted run continues from its checkpoint. */
  resumed: boolean;
  /** True when the run was created here, now: no turn of it was saved before (turns.ts). */
  fresh?: boolean;
  /**
   * Set when the run's last checkpoint has no next stage but its end was never written (a
   * checkpoint from before the end of a run became one transaction, or a worker killed between
   * them): the run is finished from the checkpoint, and no stage runs again.
   */
  finish?: RunEnd;
  /** Where the run's checkpoint counters stand (see checkpoint.ts). */
  counters: CounterLog;
}

/**
 * Continue the last run when it was interrupted (its worker died, or it was cancelled or paused
 * mid-stage) — else start a new one. `resume` and `retry` prepare their runs before queueing the
 * task (see cli/commands/resume.ts), so here a fresh run is always a plain start.
 */
export async function planRun(task: Task, workflow: Workflow, deps: EngineDeps): Promise<RunPlan> {
  const { store, clock } = deps;
  const runs = await store.listRuns(task.id);
  const last = runs.at(-1);
  if (last && (last.status === "running" || last.status === "interrupted")) {
    const cp = await loadRunState(store, task.id, last.id);
    const state = cp ? cp.state : initialRunState(workflow.start);
    const counters = cp ? cp.log : newCounterLog();
    if (state.next !== null || (cp !== null && last.status === "running")) {
      const run = await store.transaction((tx) => tx.updateRun(last.id, { status: "running" }, clock.now()), {
        fence: deps.lease,
      });
      if (state.next !== null) return { run, state, resumed: cp !== null, counters };
      return { run, state, resumed: true, finish: endOfRecordedRun(state, workflow, last.id), counters };
    }
  }
  const now = clock.now();
  const state = initialRunState(workflow.start);
  const run = await store.transaction(
    async (tx) => {
      const run = await tx.createRun(task.id, "start", {}, now);
      await tx.commitStage({
        taskId: task.id,
        runId: run.id,
        stage: null,
        checkpoint: { state: stateToJson(state) },
        findings: [],
        events: [
          {
            taskId: task.id,
            runId: run.id,
            type: "run.started",
            data: { kind: run.kind, workflow: workflow.name },
          },
        ],
        task: { currentStage: state.next, cycle: 0 },
        now,
      });
      return run;
    },
    { fence: deps.lease },
  );
  crashPoint("run-started");
  return { run, state, resumed: false, fresh: true, counters: newCounterLog() };
}

/**
 * How a run whose checkpoint says "no next stage" ended. A stored final verdict says it; else
 * the last stage decided it: an exit stage (its forced verdict, if any), anything else a stop.
 */
function endOfRecordedRun(state: RunState, workflow: Workflow, runId: number): RunEnd {
  if (state.stoppedAt !== null) {
    return {
      kind: "stopped",
      reason: state.final?.reason ?? `run ${runId} stopped at ${state.stoppedAt}`,
      stageId: state.stoppedAt,
    };
  }
  const exit = [...workflow.stages.values()].find(
    (s) => s.kind === "exit" && (getCount(state.visits, s.id) ?? 0) > 0,
  );
  return {
    kind: "exit",
    stageId: exit?.id ?? null,
    ...(exit?.verdict ? { forced: exit.verdict } : {}),
    ...(exit ? { reason: exitReason(exit, state) } : {}),
  };
}

/** A worker that died mid-stage may have left the agent's work uncommitted: keep it. */
export async function saveInterruptedWork(
  task: Task,
  workdir: string,
  deps: EngineDeps,
  stage: string | null,
) {
  const dirty = await deps.git.status(workdir);
  if (dirty.length === 0) return null;
  return deps.git.commitAll(
    workdir,
    `WIP: ${task.title} — work left by an interrupted run${stage ? ` (stage ${stage})` : ""}`,
  );
}
