import { join } from "node:path";
import { worktreePath } from "../domain/naming.js";
import {
  type Finding,
  heldByLiveWorker,
  type Run,
  type StageExecution,
  type Task,
  type TaskEvent,
  totalTokens,
} from "../domain/types.js";
import { listReviewArtifacts, restoreArtifacts } from "../engine/artifacts.js";
import type { AppContext } from "./context.js";
import { type ReviewerRow, reviewerStats, reviewersDeps } from "./reviewers.js";
import { requireTask } from "./task-ref.js";

export interface TaskDetails {
  task: Task;
  runs: Run[];
  stages: StageExecution[];
  findings: Finding[];
  events: TaskEvent[];
  /** Review artifacts that exist on disk, by cycle. */
  reviewArtifacts: string[];
  /** Each reviewer's precision and cost on this task (`fixpoint reviewers`, per task). */
  reviewers: ReviewerRow[];
  totals: { costUsd: number; tokens: number };
  /**
   * False when the task's worktree is another clone's (it last ran on another machine): this
   * clone reads its branch through the push remote (`diff`, `checkout`; task-branch.ts).
   */
  worktreeInThisClone: boolean;
}

/** Everything known about one task: runs, stage timeline, findings registry, events, artifacts. */
export async function showTask(
  ctx: Pick<AppContext, "store" | "dir" | "root" | "config" | "clock">,
  ref: string,
): Promise<TaskDetails> {
  const { store } = ctx;
  const task = await requireTask(store, ref);
  const [stored, stages, findings, events] = await Promise.all([
    store.listRuns(task.id),
    store.listStageExecutions(task.id),
    store.listFindings(task.id),
    store.listEvents(task.id),
  ]);
  const runs = stored.map((r) => asSeen(r, task, ctx.clock.now()));
  // Every run's artifacts (a run id in the name keeps a retry from overwriting the first's).
  // Review files another machine's worker wrote are restored from the store first.
  const reviewsDir = join(ctx.dir, "reviews");
  const storedReviews = await restoreArtifacts(store, reviewsDir, task.id, "review");
  const reviewArtifacts = listReviewArtifacts(reviewsDir, task.id, storedReviews).map((a) => a.path);
  const costUsd = stages.reduce((a, s) => a + s.costUsd, 0);
  const tokens = stages.reduce((a, s) => a + totalTokens(s.usage), 0);
  const reviewers = await reviewerStats(reviewersDeps(ctx), { read: { task, findings, stages } });
  const worktreeInThisClone =
    task.worktreePath === null || task.worktreePath === worktreePath(ctx.config.worktrees, ctx.root, task.id);
  return {
    task,
    runs,
    stages,
    findings,
    events,
    reviewArtifacts,
    reviewers,
    totals: { costUsd, tokens },
    worktreeInThisClone,
  };
}

/**
 * A run still marked running on a task no live worker holds (its worker was killed after the
 * task was cancelled or stopped) is shown as what it is: interrupted, resumable from its
 * checkpoint. The stored row is left alone; the next worker or `resume` settles it.
 */
function asSeen(run: Run, task: Task, now: number): Run {
  if (run.status !== "running" || heldByLiveWorker(task, now) || task.status === "queued") return run;
  return { ...run, status: "interrupted" };
}
