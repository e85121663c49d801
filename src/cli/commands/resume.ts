import type { Command } from "commander";
import type { Run, Task } from "../../domain/types.js";
import type { RunState } from "../../engine/state.js";
import { FixpointError } from "../../errors.js";
import { loadWorkflow } from "../../workflow/loader.js";
import type { Io } from "../io.js";
import { openProject, type Project } from "../project.js";
import { requireTask } from "../task-ref.js";
import { work } from "./work.js";

const COMMANDS: { name: string; description: string; prepare: (p: Project, t: Task) => Promise<string> }[] = [
  {
    name: "resume",
    description:
      "continue the last run from its checkpoint; after a review failure, restart the fix loop with the stored blocking findings",
    prepare: (p, t) => prepareResume(p, t),
  },
  {
    name: "retry",
    description: "a new run from the failed phase with a fresh agent session; the registry is kept",
    prepare: (p, t) => prepareRetry(p, t),
  },
];

export function registerResume(program: Command, io: Io, exit: { code: number }): void {
  for (const c of COMMANDS) {
    program
      .command(c.name)
      .description(c.description)
      .argument("<id>", "task id")
      .option("--queue", "only queue it; a running `fixpoint work` picks it up")
      .action(async (ref: string, opts: { queue?: boolean }) => {
        const project = await openProject(io.cwd, { env: io.env });
        try {
          const task = await requireTask(project.store, ref);
          io.out(`${await c.prepare(project, task)}\n`);
          if (!opts.queue) {
            exit.code = await work(project, io, { ids: [task.id], concurrency: 1, once: true, watch: false });
          }
        } finally {
          await project.close();
        }
      });
  }
}

function assertNotRunning(task: Task): void {
  if (task.status === "running") {
    throw new FixpointError(
      "usage",
      `${task.id} is running; \`fixpoint cancel ${task.id}\` first, or let its worker finish`,
    );
  }
}

async function lastRunState(project: Project, task: Task): Promise<{ run: Run; state: RunState } | null> {
  const { loadRunState } = await import("../../engine/checkpoint.js");
  const run = (await project.store.listRuns(task.id)).at(-1);
  if (!run) return null;
  const cp = await loadRunState(project.store, task.id, run.id);
  return cp ? { run, state: cp.state } : null;
}

/**
 * `resume`: a run that ended on review failure with stored blocking findings restarts its fix loop
 * from them (seed 002: the follow-up prompt, the fixer's previous session, cycles counted from 1);
 * any other run continues from its checkpoint.
 */
export async function prepareResume(project: Project, task: Task): Promise<string> {
  assertNotRunning(task);
  const [{ writeCheckpoint }, { parseStoredReviewIssues }] = await Promise.all([
    import("../../engine/checkpoint.js"),
    import("../../findings/stored-issues.js"),
  ]);
  const now = Date.now();
  const last = await lastRunState(project, task);
  const { store } = project;
  const requeue = () =>
    store.updateTask(task.id, { status: "queued", finalVerdict: null, reason: null }, now);
  if (!last) {
    await requeue();
    return `${task.id} queued (it had not started)`;
  }
  const issues = parseStoredReviewIssues(last.run.meta.lastReviewIssues ?? null);
  const workflow = await loadWorkflow(task.workflow, task.repo);
  const fix = [...workflow.stages.values()].find((s) => s.kind === "fix" && !s.parentId);
  // A run that ended at an exit with blocking findings left restarts its fix loop. With stored
  // findings (seed 002) the first fix gets exactly those; a run recorded before they were stored
  // resumes from the registry's open findings instead.
  const live = (await store.listFindings(task.id)).filter((f) =>
    ["open", "fixed", "deferred"].includes(f.status),
  );
  if (fix && last.state.final && (issues.length > 0 || live.length > 0)) {
    const state: RunState = {
      ...last.state,
      next: fix.id,
      cycleBase: last.state.cycle,
      stoppedAt: null,
      verdicts: {},
      pending: {},
      blockingHistory: [],
      visits: {},
      followup: issues.length > 0 ? issues : null,
      final: null,
    };
    const run = await store.createRun(task.id, "resume", {}, now);
    const msg =
      issues.length > 0
        ? `Using review follow-up for resume: ${issues.length} findings from run ${last.run.id}`
        : `Resuming the fix loop from the ${live.length} open findings (run ${last.run.id} stored no review follow-up)`;
    await writeCheckpoint(store, {
      taskId: task.id,
      runId: run.id,
      state,
      event: {
        type: "run.resume_followup",
        data: { fromRun: last.run.id, findings: issues.map((i) => i.id), message: msg },
      },
      task: { currentStage: fix.id, cycle: 0 },
      now,
    });
    await requeue();
    return msg;
  }
  const next = last.state.next ?? last.state.stoppedAt;
  if (!next) {
    throw new FixpointError(
      "usage",
      `${task.id} ended ${task.finalVerdict ?? task.status} with nothing to resume; \`fixpoint improve ${task.id}\` starts a new round`,
    );
  }
  await writeCheckpoint(store, {
    taskId: task.id,
    runId: last.run.id,
    state: { ...last.state, next, stoppedAt: null, final: null },
    event: { type: "run.resumed", data: { at: next } },
    task: { currentStage: next },
    now,
  });
  await store.updateRun(
    last.run.id,
    { status: "interrupted", finalVerdict: null, reason: null, endedAt: null },
    now,
  );
  await requeue();
  return `${task.id} resumes run ${last.run.id} at stage ${next}`;
}

/** `retry`: a new run from the failed stage, fresh agent sessions, same registry. */
export async function prepareRetry(project: Project, task: Task): Promise<string> {
  assertNotRunning(task);
  const { writeCheckpoint } = await import("../../engine/checkpoint.js");
  const now = Date.now();
  const { store } = project;
  const last = await lastRunState(project, task).catch(() => null);
  const workflow = await loadWorkflow(task.workflow, task.repo);
  const from = last ? (last.state.stoppedAt ?? last.state.next ?? workflow.start) : workflow.start;
  const run = await store.createRun(task.id, "retry", {}, now);
  if (last) {
    const state: RunState = {
      ...last.state,
      next: from,
      sessions: {},
      pending: {},
      final: null,
      stoppedAt: null,
      visits: {},
    };
    await writeCheckpoint(store, {
      taskId: task.id,
      runId: run.id,
      state,
      event: { type: "run.retry", data: { from } },
      task: { currentStage: from },
      now,
    });
  }
  await store.updateTask(task.id, { status: "queued", finalVerdict: null, reason: null }, now);
  return `${task.id}: new run ${run.id} from stage ${from}${last ? "" : " (fresh start)"}`;
}
