import type { Run, Task } from "../domain/types.js";
import { branchName, worktreePath } from "../git/naming.js";
import type { Workflow } from "../workflow/types.js";
import { writeCheckpoint } from "./checkpoint.js";
import type { EngineDeps } from "./deps.js";
import { initialRunState, parseRunState, type RunState } from "./state.js";

/**
 * Makes sure the task has its worktree (created once, reused for the whole loop and across
 * resumes, recreated from the branch when the folder is gone) and returns its path.
 */
export async function ensureTaskWorktree(task: Task, deps: EngineDeps): Promise<Task> {
  const branch = task.branch ?? branchName(task.id, task.title);
  const path = task.worktreePath ?? worktreePath(deps.config.worktrees, task.repo, task.id);
  const wt = await deps.git.ensureWorktree({ repo: task.repo, path, branch, base: task.baseBranch });
  if (task.branch === branch && task.worktreePath === wt.path) return task;
  return deps.store.updateTask(task.id, { branch, worktreePath: wt.path }, deps.clock.now());
}

export interface RunPlan {
  run: Run;
  state: RunState;
  /** True when an interrupted run continues from its checkpoint. */
  resumed: boolean;
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
    const cp = await store.getCheckpoint(last.id);
    const state = cp ? parseRunState(cp.state, task.id) : initialRunState(workflow.start);
    if (state.next !== null) {
      const run = await store.updateRun(last.id, { status: "running" }, clock.now());
      return { run, state, resumed: cp !== null };
    }
  }
  const run = await store.createRun(task.id, "start", {}, clock.now());
  const state = initialRunState(workflow.start);
  await writeCheckpoint(store, {
    taskId: task.id,
    runId: run.id,
    state,
    event: { type: "run.started", data: { kind: run.kind, workflow: workflow.name } },
    task: { currentStage: state.next, cycle: 0 },
    now: clock.now(),
    fence: deps.lease,
  });
  return { run, state, resumed: false };
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
