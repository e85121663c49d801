import { join } from "node:path";
import { deferFinding, reopenFinding } from "../app/finding-status.js";
import type { Fixpoint } from "../app/fixpoint.js";
import { restoreTaskFiles } from "../app/logs.js";
import { taskDiff } from "../app/task-diff.js";
import { requireTask } from "../app/task-ref.js";
import type { GithubConfig } from "../config/types.js";
import type { Clock } from "../domain/clock.js";
import type { Git } from "../domain/git.js";
import { FixpointError } from "../errors.js";
import { createGit } from "../git/git-cli.js";
import { systemClock } from "../util/clock.js";
import type { DashboardApi } from "./api.js";
import { listArtifacts, readArtifactChunk } from "./artifacts.js";

export interface AppApiOptions {
  /** Who acts (recorded on events the dashboard writes itself); the same as the Fixpoint's actor. */
  actor: string;
  git?: Git;
  clock?: Clock;
}

/**
 * The dashboard's use cases: every action is the application layer's (`createFixpoint`), the
 * same one the CLI calls, bound to the dashboard's actor; the paged reads the morning report
 * needs are the Store port's dashboard methods. Nothing here writes SQL.
 */
export function createAppApi(fp: Fixpoint, opts: AppApiOptions): DashboardApi {
  const { store } = fp;
  const git = opts.git ?? createGit();
  const dir = join(fp.root, ".fixpoint");
  const findingCtx = { store, clock: opts.clock ?? systemClock, actor: opts.actor };
  /** A dashboard finding action: the application's use case, the person's justification its reason. */
  const findingAction =
    (act: typeof deferFinding | typeof reopenFinding): DashboardApi["deferFinding"] =>
    async (i) => {
      const r = await act(findingCtx, { task: i.taskId, finding: i.findingId, reason: i.justification });
      return { taskId: r.taskId, message: r.message };
    };

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
    show: (taskId) => fp.show(taskId),
    findings: (filter) => store.searchFindings(filter),
    diff: async (taskId) => (await taskDiff({ store, git }, taskId)).diff,
    // Files only in the database (another machine's, or a running task's transcripts, written
    // when its run ends) are written here first.
    async artifacts(taskId, limit) {
      const task = await requireTask(store, taskId);
      const { reviews } = await restoreTaskFiles({ store, dir }, task.id);
      return listArtifacts(dir, task.id, reviews, limit);
    },
    async readArtifact(taskId, name, offset, length) {
      const task = await requireTask(store, taskId);
      const read = () => readArtifactChunk(dir, task.id, name, offset, length);
      return read().catch(async (e: unknown) => {
        if (!(e instanceof FixpointError && e.code === "not_found")) throw e;
        await restoreTaskFiles({ store, dir }, task.id);
        return read();
      });
    },
    events: (afterId, limit) => store.listEventsAfter(afterId, limit),
    lastEventId: () => store.lastEventId(),
    pullRequestUrl: (n) => pullRequestUrl(fp.config.github, n),

    async approve(i) {
      const r = await fp.approve({ task: i.taskId, reason: i.note });
      return { taskId: r.task.id, message: `${r.task.id}: approved at ${r.stage}; queued for a worker` };
    },
    async reject(i) {
      const r = await fp.reject({ task: i.taskId, reason: i.note });
      return { taskId: r.task.id, message: `${r.task.id}: rejected at ${r.stage}; queued for a worker` };
    },
    async cancel(i) {
      const r = await fp.cancel(i.taskId);
      return { taskId: r.task.id, message: `${r.task.id} cancelled (was ${r.was})` };
    },
    async resume(i) {
      const r = await fp.resume({ task: i.taskId, feedback: i.feedback });
      return { taskId: r.task.id, message: r.message };
    },
    async retry(i) {
      const r = await fp.retry({ task: i.taskId });
      return { taskId: r.task.id, message: r.message };
    },
    async editTask(i) {
      const r = await fp.editTask({
        task: i.taskId,
        verdict: i.verdict,
        budgetUsd: i.budgetUsd,
        maxCycles: i.maxCycles,
      });
      const changed = Object.entries(r.changes)
        .map(([k, [from, to]]) => `${k} ${JSON.stringify(from)} → ${JSON.stringify(to)}`)
        .join("; ");
      if (!i.requeue) return { taskId: r.task.id, message: `${r.task.id}: ${changed}` };
      const resumed = await fp.resume({ task: r.task.id });
      return { taskId: r.task.id, message: `${r.task.id}: ${changed}; ${resumed.message}` };
    },
    deferFinding: findingAction(deferFinding),
    reopenFinding: findingAction(reopenFinding),
  };
}

/**
 * `https://github.com/<owner>/<name>/pull/<n>`; on GitHub Enterprise the web host of the
 * configured API URL (`https://ghe.example/api/v3` → `https://ghe.example`).
 */
export function pullRequestUrl(github: GithubConfig | null, n: number): string | null {
  if (!github || !/^[\w.-]+\/[\w.-]+$/.test(github.repo) || !Number.isInteger(n)) return null;
  let web = "https://github.com";
  if (github.baseUrl) {
    const api = new URL(github.baseUrl);
    if (api.protocol !== "https:" && api.protocol !== "http:") return null;
    web = api.hostname === "api.github.com" ? web : `${api.protocol}//${api.host}`;
  }
  return `${web}/${github.repo}/pull/${n}`;
}
