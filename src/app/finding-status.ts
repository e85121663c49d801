import { z } from "zod";
import type { StoreOps } from "../domain/store.js";
import type { Finding, FindingStatus, Learning, NewTaskEvent, Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { learningOrigin } from "../findings/learnings.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";
import { parseInput } from "./validate.js";

/**
 * A person changes one finding's status, with their reason, in one transaction with its event
 * (who, when, why): defer, reopen, dismiss. A dismissal teaches the repository a learning
 * (issue 16) unless `learn: false`; reopening a dismissed finding removes the learning its
 * dismissal created. The CLI (`fixpoint findings dismiss|reopen`) and the dashboard call these.
 */
export interface FindingChange {
  taskId: string;
  finding: Finding;
  /** The learning a dismissal created, or the one a reopen removed; null otherwise. */
  learning: Learning | null;
  message: string;
}

type Ctx = Pick<AppContext, "store" | "clock" | "actor">;

const reasonText = (what: string) =>
  z
    .string({ required_error: `${what} needs a reason` })
    .trim()
    .min(1, `${what} needs a reason`);
const Ref = { task: z.string().min(1), finding: z.string().trim().min(1) };

const DeferInput = z.object({ ...Ref, reason: reasonText("a deferral") }).strict();
const ReopenInput = z.object({ ...Ref, reason: z.string().trim().min(1).optional() }).strict();
const DismissInput = z
  .object({ ...Ref, reason: reasonText("a dismissal"), learn: z.boolean().optional() })
  .strict();

export type DeferFindingInput = z.input<typeof DeferInput>;
export type ReopenFindingInput = z.input<typeof ReopenInput>;
export type DismissFindingInput = z.input<typeof DismissInput>;

/** Defers an open or blocked finding: the loop leaves it for later, with the person's reason. */
export async function deferFinding(ctx: Ctx, raw: DeferFindingInput): Promise<FindingChange> {
  const input = parseInput("findings defer", DeferInput, raw);
  return change(ctx, input, async (_tx, _task, f) => {
    if (f.status !== "open" && f.status !== "blocked") {
      throw new FixpointError(
        "usage",
        `${f.id} is ${f.status}; only open or blocked findings can be deferred`,
      );
    }
    return { to: "deferred", note: input.reason, learning: null, data: { justification: input.reason } };
  });
}

/** Opens a finding again (a fix that did not hold, a dismissal that was wrong). */
export async function reopenFinding(ctx: Ctx, raw: ReopenFindingInput): Promise<FindingChange> {
  const input = parseInput("findings reopen", ReopenInput, raw);
  return change(ctx, input, async (tx, task, f) => {
    if (f.status === "open") throw new FixpointError("usage", `${f.id} is already open`);
    const taught =
      f.status === "dismissed"
        ? (await tx.listLearnings({ repo: task.repo })).find(
            (l) =>
              l.source.kind === "dismissed" && l.source.taskId === task.id && l.source.findingId === f.id,
          )
        : undefined;
    const removed = taught ? await tx.removeLearning(taught.id, ctx.clock.now()) : null;
    const note = input.reason ?? `reopened by ${ctx.actor}`;
    return {
      to: "open",
      note,
      learning: removed,
      data: { justification: note, ...(removed ? { learningRemoved: removed.id } : {}) },
    };
  });
}

/**
 * Dismisses a finding (fixpoint will not fix it) with the person's reason as its note. Unless
 * `learn` is false the reason becomes a learning: reviewers of later changes to the same file are
 * told it, and the same finding raised again is dismissed by it.
 */
export async function dismissFinding(ctx: Ctx, raw: DismissFindingInput): Promise<FindingChange> {
  const input = parseInput("findings dismiss", DismissInput, raw);
  return change(ctx, input, async (tx, task, f) => {
    if (f.status === "dismissed") throw new FixpointError("usage", `${f.id} is already dismissed`);
    const learning =
      input.learn === false
        ? null
        : await tx.addLearning({
            repo: task.repo,
            text: input.reason,
            scope: f.file,
            source: { kind: "dismissed", taskId: task.id, findingId: f.id },
            origin: learningOrigin(f),
            createdAt: ctx.clock.now(),
            createdBy: ctx.actor,
          });
    return {
      to: "dismissed",
      note: input.reason,
      learning,
      data: { reason: input.reason, learning: learning?.id ?? null },
    };
  });
}

interface Decision {
  to: FindingStatus;
  note: string;
  learning: Learning | null;
  data: Record<string, string | null>;
}

const VERB: Partial<Record<FindingStatus, string>> = {
  open: "reopened",
  deferred: "deferred",
  dismissed: "dismissed",
};

async function change(
  ctx: Ctx,
  input: { task: string; finding: string },
  decide: (tx: StoreOps, task: Task, f: Finding) => Promise<Decision>,
): Promise<FindingChange> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const task = await requireTask(tx, input.task);
    if (task.status === "running") {
      throw new FixpointError("usage", `${task.id} is running; its findings change when the run ends`);
    }
    const f = (await tx.listFindings(task.id)).find(
      (x) => x.id.toLowerCase() === input.finding.toLowerCase(),
    );
    if (!f) throw new FixpointError("not_found", `${task.id} has no finding \`${input.finding}\``);
    const d = await decide(tx, task, f);
    const next: Finding = {
      ...f,
      status: d.to,
      note: d.note,
      timesReopened: d.to === "open" ? f.timesReopened + 1 : f.timesReopened,
      updatedAt: now,
    };
    const verb = VERB[d.to] ?? d.to;
    const event: NewTaskEvent = {
      taskId: task.id,
      runId: null,
      type: `finding.${verb}`,
      data: { finding: f.id, from: f.status, by: ctx.actor, at: new Date(now).toISOString(), ...d.data },
    };
    await tx.saveFindings(task.id, [next], [event], now);
    const learned = d.to === "dismissed" && d.learning ? `; learning ${d.learning.id} recorded` : "";
    const unlearned = d.to === "open" && d.learning ? `; learning ${d.learning.id} removed` : "";
    return {
      taskId: task.id,
      finding: next,
      learning: d.learning,
      message: `${f.id} ${verb}${learned}${unlearned}`,
    };
  });
}
