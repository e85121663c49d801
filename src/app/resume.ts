import { z } from "zod";
import type { StoreOps } from "../domain/store.js";
import type { StoredReviewIssue, Task } from "../domain/types.js";
import { isActiveFinding } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { parseStoredReviewIssues } from "../findings/stored-issues.js";
import { loadWorkflow } from "../workflow/loader.js";
import type { Workflow } from "../workflow/types.js";
import type { AppContext } from "./context.js";
import { recordFeedback } from "./feedback.js";
import { assertRestartable, lastRunState, nextRunState, putCheckpoint } from "./run-state.js";
import { requireTask } from "./task-ref.js";
import { parseInput } from "./validate.js";

const Input = z
  .object({
    task: z.string().min(1),
    /** What a person wants changed: an open blocking finding the fix loop must answer. */
    feedback: z.string().trim().min(1, "feedback must say something").optional(),
  })
  .strict();
export type ResumeInput = z.input<typeof Input>;

export interface Restart {
  task: Task;
  /** One line for a person: what will happen when a worker picks the task up. */
  message: string;
  /** True when the task's worker had died and its expired lease was taken over. */
  tookOver: boolean;
}

/**
 * `resume`: a run that ended on review failure with blocking findings restarts its fix loop from
 * them (the stored follow-up, else the registry's open findings); any other run continues from its
 * checkpoint. With `feedback`, the person's words become an open blocking finding and the fix loop
 * restarts to answer it (also after an approval). The workflow is read first; then the new run, checkpoint, run status, task status
 * and events are ONE transaction, so a crash leaves the task either untouched or fully re-queued.
 */
export async function resumeTask(
  ctx: Pick<AppContext, "store" | "clock" | "actor" | "config" | "env">,
  raw: string | ResumeInput,
): Promise<Restart> {
  const input = parseInput("resume", Input, typeof raw === "string" ? { task: raw } : raw);
  const ref = input.task;
  const first = await requireTask(ctx.store, ref);
  const workflow = await loadWorkflow(first.workflow, first.repo);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const task = await requireTask(tx, ref);
    const tookOver = assertRestartable(task, now);
    const feedback = input.feedback
      ? await recordFeedback(tx, task, {
          text: input.feedback,
          by: ctx.actor,
          cycle: task.cycle,
          blockingSeverity: ctx.config.defaults.blockingSeverity,
          now,
          env: ctx.env,
        })
      : null;
    const message = await rebuild(tx, task, workflow, now, feedback);
    const updated = await tx.updateTask(task.id, { status: "queued", finalVerdict: null, reason: null }, now);
    await tx.appendEvents(
      [
        {
          taskId: task.id,
          runId: null,
          type: "task.resumed",
          data: { by: ctx.actor, at: new Date(now).toISOString(), tookOver, message },
        },
      ],
      now,
    );
    return { task: updated, message, tookOver };
  });
}

async function rebuild(
  tx: StoreOps,
  task: Task,
  workflow: Workflow,
  now: number,
  feedback: StoredReviewIssue | null,
): Promise<string> {
  const last = await lastRunState(tx, task);
  if (!last) return `${task.id} queued (it had not started)`;
  const stored = parseStoredReviewIssues(last.run.meta.lastReviewIssues ?? null);
  // Feedback joins the stored follow-up (the first fix sees exactly those); without one, the fix
  // works from the registry's open findings, the feedback among them.
  const issues = stored.length > 0 && feedback ? [...stored, feedback] : stored;
  const fix = [...workflow.stages.values()].find((s) => s.kind === "fix" && !s.parentId);
  // With stored findings (seed 002) the first fix gets exactly those; a run recorded before they
  // were stored resumes from the registry's open findings instead.
  const live = (await tx.listFindings(task.id)).filter((f) => isActiveFinding(f.status));
  if (fix && last.state.final && (issues.length > 0 || live.length > 0)) {
    return restartFixLoop(tx, { task, last, fixId: fix.id, issues, liveCount: live.length, feedback, now });
  }
  return resumeAtStop(tx, task, last, now);
}

type LastRun = NonNullable<Awaited<ReturnType<typeof lastRunState>>>;

/** A run that ended: a new `resume` run whose first stage is the fix, working on `issues`. */
async function restartFixLoop(
  tx: StoreOps,
  o: {
    task: Task;
    last: LastRun;
    fixId: string;
    issues: StoredReviewIssue[];
    liveCount: number;
    feedback: StoredReviewIssue | null;
    now: number;
  },
): Promise<string> {
  const { task, last, issues, now } = o;
  const state = nextRunState(last.state, {
    next: o.fixId,
    cycleBase: last.state.cycle,
    verdicts: {},
    blockingHistory: [],
    followup: issues.length > 0 ? issues : null,
  });
  const run = await tx.createRun(task.id, "resume", {}, now);
  const message =
    (o.feedback ? `Your feedback is ${o.feedback.id}. ` : "") +
    (issues.length > 0
      ? `Using review follow-up for resume: ${issues.length} findings from run ${last.run.id}`
      : `Resuming the fix loop from the ${o.liveCount} open findings (run ${last.run.id} stored no review follow-up)`);
  await putCheckpoint(tx, {
    task,
    runId: run.id,
    state,
    event: {
      type: "run.resume_followup",
      data: { fromRun: last.run.id, findings: issues.map((i) => i.id), message },
    },
    patch: { currentStage: o.fixId, cycle: 0 },
    now,
  });
  return message;
}

/** A run that stopped part way: the same run goes on at the stage it stopped at. */
async function resumeAtStop(tx: StoreOps, task: Task, last: LastRun, now: number): Promise<string> {
  const next = last.state.next ?? last.state.stoppedAt;
  if (!next) {
    throw new FixpointError(
      "usage",
      `${task.id} ended ${task.finalVerdict ?? task.status} with nothing to resume; \`fixpoint improve ${task.id}\` starts a new round`,
    );
  }
  await putCheckpoint(tx, {
    task,
    runId: last.run.id,
    state: { ...last.state, next, stoppedAt: null, final: null },
    event: { type: "run.resumed", data: { at: next } },
    patch: { currentStage: next },
    now,
  });
  await tx.updateRun(
    last.run.id,
    { status: "interrupted", finalVerdict: null, reason: null, endedAt: null },
    now,
  );
  return `${task.id} resumes run ${last.run.id} at stage ${next}`;
}
