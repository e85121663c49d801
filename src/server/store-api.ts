import { prepareResume, prepareRetry } from "../cli/commands/resume.js";
import type { Project } from "../cli/project.js";
import type { StoreOps } from "../domain/store.js";
import { type Finding, isApproval, type NewTaskEvent, type Task } from "../domain/types.js";
import { humanMarkerKey } from "../engine/handlers/simple.js";
import { FixpointError } from "../errors.js";
import type { ActionInput, ActionResult, DashboardApi, EditTaskInput } from "./api.js";
import { listArtifacts, readArtifactChunk } from "./artifacts.js";

/**
 * TEMPORARY: the dashboard's use cases over the Store port and the CLI's resume/retry helpers,
 * until the application layer (`createFixpoint` in src/app) lands; then `serve` passes that
 * instead and this file goes. Reads only through Store methods, never SQL.
 */
export function createStoreApi(project: Project, now: () => number = Date.now): DashboardApi {
  const { store } = project;

  async function requireTask(id: string): Promise<Task> {
    const task = await store.getTask(id);
    if (!task) throw new FixpointError("not_found", `no task \`${id}\``);
    return task;
  }
  function event(task: Task, type: string, data: NewTaskEvent["data"]): NewTaskEvent {
    return { taskId: task.id, runId: null, type, data: { ...data, at: new Date(now()).toISOString() } };
  }
  async function record(fn: (tx: StoreOps, at: number) => Promise<void>): Promise<void> {
    const at = now();
    await store.transaction((tx) => fn(tx, at));
  }
  function notRunning(task: Task, what: string): void {
    if (task.status === "running")
      throw new FixpointError("usage", `${task.id} is running; cancel it before you ${what}`);
  }

  async function humanDecision(input: ActionInput, decision: "approved" | "rejected", note: string | null) {
    const task = await requireTask(input.taskId);
    if (task.status !== "needs_human" || !task.currentStage || task.finalVerdict !== null) {
      throw new FixpointError("usage", `${task.id} is not waiting at a human stage (status ${task.status})`);
    }
    const stage = task.currentStage;
    await record(async (tx, at) => {
      await tx.setMarker(humanMarkerKey(task.id, stage), { decision, reason: note, by: input.by }, at);
      await tx.updateTask(task.id, { status: "queued", finalVerdict: null, reason: null }, at);
      await tx.appendEvents([event(task, `human.${decision}`, { stage, by: input.by, reason: note })], at);
    });
    return { taskId: task.id, message: `${task.id}: ${decision} at ${stage}; queued` };
  }

  async function findingChange(
    input: ActionInput & { findingId: string; justification: string },
    to: "deferred" | "open",
  ): Promise<ActionResult> {
    const task = await requireTask(input.taskId);
    notRunning(task, "change its findings");
    const f = (await store.listFindings(task.id)).find((x) => x.id === input.findingId);
    if (!f) throw new FixpointError("not_found", `${task.id} has no finding \`${input.findingId}\``);
    if (to === "deferred" && f.status !== "open" && f.status !== "blocked") {
      throw new FixpointError(
        "usage",
        `${f.id} is ${f.status}; only open or blocked findings can be deferred`,
      );
    }
    if (to === "open" && f.status === "open") throw new FixpointError("usage", `${f.id} is already open`);
    const at = now();
    const next: Finding = {
      ...f,
      status: to,
      note: input.justification,
      timesReopened: to === "open" ? f.timesReopened + 1 : f.timesReopened,
      updatedAt: at,
    };
    const type = to === "open" ? "finding.reopened" : "finding.deferred";
    await store.saveFindings(
      task.id,
      [next],
      [
        event(task, type, {
          finding: f.id,
          from: f.status,
          by: input.by,
          justification: input.justification,
        }),
      ],
      at,
    );
    return { taskId: task.id, message: `${f.id} ${to === "open" ? "reopened" : "deferred"}` };
  }

  async function editTask(input: ActionInput & EditTaskInput): Promise<ActionResult> {
    const task = await requireTask(input.taskId);
    notRunning(task, "edit it");
    const changes: string[] = [];
    await record(async (tx, at) => {
      if (input.verdict !== undefined) {
        await tx.updateTask(
          task.id,
          {
            finalVerdict: input.verdict,
            status: isApproval(input.verdict) ? "completed" : "needs_human",
            reason: `verdict set by ${input.by}`,
          },
          at,
        );
        await tx.appendEvents(
          [event(task, "verdict.overridden", { from: task.finalVerdict, to: input.verdict, by: input.by })],
          at,
        );
        changes.push(`verdict ${task.finalVerdict ?? "(none)"} → ${input.verdict}`);
      }
      if (input.budgetUsd !== undefined || input.maxCycles !== undefined) {
        const budget = input.budgetUsd !== undefined ? { ...task.budget, usd: input.budgetUsd } : task.budget;
        const maxCycles = input.maxCycles ?? task.maxCycles;
        await tx.updateTask(task.id, { budget, maxCycles }, at);
        await tx.appendEvents(
          [
            event(task, "task.limits_raised", {
              by: input.by,
              budgetUsd: budget.usd ?? null,
              maxCycles,
              wasBudgetUsd: task.budget.usd ?? null,
              wasMaxCycles: task.maxCycles,
            }),
          ],
          at,
        );
        changes.push(`budget ${budget.usd ?? "none"} USD, max cycles ${maxCycles}`);
      }
    });
    if (changes.length === 0)
      throw new FixpointError("usage", "nothing to change: give a verdict, a budget or max cycles");
    let message = `${task.id}: ${changes.join("; ")}`;
    if (input.requeue) message += `; ${await prepareResume(project, (await store.getTask(task.id)) ?? task)}`;
    return { taskId: task.id, message };
  }

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
    async show(taskId) {
      const task = await requireTask(taskId);
      const [summaries, runs, stages, findings, events] = await Promise.all([
        store.listTaskSummaries({ ids: [task.id] }),
        store.listRuns(task.id),
        store.listStageExecutions(task.id),
        store.listFindings(task.id),
        store.listEvents(task.id),
      ]);
      const summary = summaries[0];
      if (!summary) throw new FixpointError("not_found", `no task \`${taskId}\``);
      return { task, summary, runs, stages, findings, events };
    },
    findings: (filter) => store.searchFindings(filter),
    async diff(taskId) {
      const task = await requireTask(taskId);
      if (!task.branch || !(await project.git.branchExists(task.repo, task.branch))) return null;
      return project.git.diff(task.repo, task.baseBranch, { to: task.branch, mergeBase: true });
    },
    async artifacts(taskId) {
      const task = await requireTask(taskId);
      return listArtifacts(project.dir, task.id);
    },
    async readArtifact(taskId, name, offset, length) {
      const task = await requireTask(taskId);
      return readArtifactChunk(project.dir, task.id, name, offset, length);
    },
    events: (afterId, limit) => store.listEventsAfter(afterId, limit),
    lastEventId: () => store.lastEventId(),

    approve: (i) => humanDecision(i, "approved", i.note ?? null),
    reject: (i) => humanDecision(i, "rejected", i.note),
    async cancel(input) {
      const task = await requireTask(input.taskId);
      if (task.status === "completed" || task.status === "cancelled") {
        throw new FixpointError("usage", `${task.id} is already ${task.status}`);
      }
      await record(async (tx, at) => {
        await tx.updateTask(task.id, { status: "cancelled", reason: `cancelled by ${input.by}` }, at);
        await tx.appendEvents([event(task, "task.cancelled", { by: input.by, was: task.status })], at);
      });
      return { taskId: task.id, message: `${task.id} cancelled` };
    },
    async resume(input) {
      const task = await requireTask(input.taskId);
      const message = await prepareResume(project, task);
      await store.appendEvents(
        [event(task, "task.resumed", { by: input.by, feedback: input.feedback ?? null })],
        now(),
      );
      return { taskId: task.id, message };
    },
    async retry(input) {
      const task = await requireTask(input.taskId);
      const message = await prepareRetry(project, task);
      await store.appendEvents([event(task, "task.retried", { by: input.by })], now());
      return { taskId: task.id, message };
    },
    editTask,
    deferFinding: (i) => findingChange(i, "deferred"),
    reopenFinding: (i) => findingChange(i, "open"),
  };
}
