import { cancelTask } from "../app/cancel.js";
import type { AppContext } from "../app/context.js";
import { editTask } from "../app/edit-task.js";
import { approve, reject } from "../app/human.js";
import { resumeTask } from "../app/resume.js";
import { retryTask } from "../app/retry.js";
import { showTask } from "../app/show.js";
import { requireTask } from "../app/task-ref.js";
import type { DashboardApi } from "./api.js";
import { listArtifacts, readArtifactChunk } from "./artifacts.js";
import { changeFinding } from "./finding-status.js";

/**
 * The dashboard's use cases: every action is the application layer's (`src/app`), the same one
 * the CLI calls, run with the dashboard's actor; the paged reads the morning report needs are
 * the Store port's dashboard methods. Nothing here writes SQL.
 */
export function createAppApi(ctx: AppContext): DashboardApi {
  const { store } = ctx;
  const as = (by: string): AppContext => ({ ...ctx, actor: by });

  return {
    status: (i) =>
      store.listTaskSummaries({
        statuses: i.statuses,
        updatedSince: i.since,
        newestFirst: true,
        limit: i.limit,
        beforeSeq: i.beforeSeq,
      }),
    countTasks: (i) => store.countTasks({ statuses: i.statuses, updatedSince: i.since }),
    totals: (i) => store.taskTotals({ updatedSince: i.since }),
    show: (taskId) => showTask(ctx, taskId),
    findings: (filter) => store.searchFindings(filter),
    async diff(taskId) {
      const task = await requireTask(store, taskId);
      if (!task.branch || !(await ctx.git.branchExists(task.repo, task.branch))) return null;
      return ctx.git.diff(task.repo, task.baseBranch, { to: task.branch, mergeBase: true });
    },
    async artifacts(taskId) {
      const task = await requireTask(store, taskId);
      return listArtifacts(ctx.dir, task.id);
    },
    async readArtifact(taskId, name, offset, length) {
      const task = await requireTask(store, taskId);
      return readArtifactChunk(ctx.dir, task.id, name, offset, length);
    },
    events: (afterId, limit) => store.listEventsAfter(afterId, limit),
    lastEventId: () => store.lastEventId(),

    async approve(i) {
      const r = await approve(as(i.by), { task: i.taskId, reason: i.note });
      return { taskId: r.task.id, message: `${r.task.id}: approved at ${r.stage}; queued for a worker` };
    },
    async reject(i) {
      const r = await reject(as(i.by), { task: i.taskId, reason: i.note });
      return { taskId: r.task.id, message: `${r.task.id}: rejected at ${r.stage}; queued for a worker` };
    },
    async cancel(i) {
      const r = await cancelTask(as(i.by), i.taskId);
      return { taskId: r.task.id, message: `${r.task.id} cancelled (was ${r.was})` };
    },
    async resume(i) {
      const r = await resumeTask(as(i.by), i.taskId);
      if (i.feedback !== undefined) {
        // The app's resume takes no feedback yet: it is kept on the task's log for the person and
        // the next reviewer to read.
        await store.appendEvents(
          [
            {
              taskId: r.task.id,
              runId: null,
              type: "task.feedback",
              data: { by: i.by, feedback: i.feedback },
            },
          ],
          ctx.clock.now(),
        );
      }
      return { taskId: r.task.id, message: r.message };
    },
    async retry(i) {
      const r = await retryTask(as(i.by), { task: i.taskId });
      return { taskId: r.task.id, message: r.message };
    },
    async editTask(i) {
      const r = await editTask(as(i.by), {
        task: i.taskId,
        verdict: i.verdict,
        budgetUsd: i.budgetUsd,
        maxCycles: i.maxCycles,
      });
      const changed = Object.entries(r.changes)
        .map(([k, [from, to]]) => `${k} ${JSON.stringify(from)} → ${JSON.stringify(to)}`)
        .join("; ");
      if (!i.requeue) return { taskId: r.task.id, message: `${r.task.id}: ${changed}` };
      const resumed = await resumeTask(as(i.by), r.task.id);
      return { taskId: r.task.id, message: `${r.task.id}: ${changed}; ${resumed.message}` };
    },
    deferFinding: (i) => changeFinding(as(i.by), i, "deferred"),
    reopenFinding: (i) => changeFinding(as(i.by), i, "open"),
  };
}
