import { z } from "zod";
import type { TaskPatch } from "../domain/store.js";
import {
  FINAL_VERDICTS,
  type FinalVerdict,
  isApproval,
  type Json,
  type JsonObject,
  type Task,
} from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { cleanNotes } from "./add-task.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";
import { parseInput } from "./validate.js";

const Input = z
  .object({
    task: z.string().min(1),
    /** Overrides the final verdict of a task that is not running. */
    verdict: z
      .string()
      .transform((v) => v.toUpperCase())
      .pipe(z.enum(FINAL_VERDICTS, { message: `one of ${FINAL_VERDICTS.join(", ")}` }))
      .optional(),
    maxCycles: z.number().int().min(1).optional(),
    budgetUsd: z.number().finite().min(0).optional(),
    budgetTokens: z.number().int().min(0).optional(),
    /** Claim order: higher first, then oldest. */
    priority: z.number().int().optional(),
    /** Replaces the task's notes (redacted); an empty string clears them. */
    notes: z.string().optional(),
  })
  .strict()
  .refine(
    (i) => Object.entries(i).some(([k, v]) => k !== "task" && v !== undefined),
    "nothing to change (give a verdict, max cycles, a budget, a priority or notes)",
  );
export type EditTaskInput = z.input<typeof Input>;

export interface EditResult {
  task: Task;
  /** What changed: field → [before, after]. */
  changes: Record<string, [Json, Json]>;
}

/**
 * Changes a task's verdict, cycle bound, budget, priority or notes; one transaction with an
 * event naming who and when. A verdict cannot be set while a worker runs the task; the rest can
 * (a running task keeps its place; a new priority orders its next claim).
 */
export async function editTask(
  ctx: Pick<AppContext, "store" | "clock" | "actor" | "env">,
  raw: EditTaskInput,
): Promise<EditResult> {
  const input = parseInput("editTask", Input, raw);
  const now = ctx.clock.now();
  const at = new Date(now).toISOString();
  return ctx.store.transaction(async (tx) => {
    const task = await requireTask(tx, input.task);
    const patch: TaskPatch = {};
    const changes: Record<string, [Json, Json]> = {};
    const events: { type: string; data: JsonObject }[] = [];
    if (input.verdict !== undefined) {
      if (task.status === "running")
        throw new FixpointError("usage", `${task.id} is running; cancel it first`);
      const v: FinalVerdict = input.verdict;
      Object.assign(patch, {
        finalVerdict: v,
        status: isApproval(v) ? "completed" : "needs_human",
        reason: `verdict set by ${ctx.actor}`,
      });
      changes.verdict = [task.finalVerdict, v];
      events.push({
        type: "verdict.overridden",
        data: { from: task.finalVerdict, to: v, by: ctx.actor, at },
      });
    }
    if (input.maxCycles !== undefined) {
      patch.maxCycles = input.maxCycles;
      changes.maxCycles = [task.maxCycles, input.maxCycles];
    }
    if (input.budgetUsd !== undefined || input.budgetTokens !== undefined) {
      patch.budget = {
        ...task.budget,
        ...(input.budgetUsd !== undefined ? { usd: input.budgetUsd } : {}),
        ...(input.budgetTokens !== undefined ? { tokens: input.budgetTokens } : {}),
      };
      changes.budget = [budgetJson(task.budget), budgetJson(patch.budget)];
    }
    if (input.priority !== undefined) {
      patch.priority = input.priority;
      changes.priority = [task.priority, input.priority];
    }
    if (input.notes !== undefined) {
      patch.notes = cleanNotes(input.notes, ctx.env);
      changes.notes = [task.notes, patch.notes];
    }
    const limits = Object.fromEntries(Object.entries(changes).filter(([k]) => k !== "verdict"));
    if (Object.keys(limits).length > 0)
      events.push({ type: "task.edited", data: { ...limits, by: ctx.actor, at } });
    const updated = await tx.updateTask(task.id, patch, now);
    await tx.appendEvents(
      events.map((e) => ({ taskId: task.id, runId: null, ...e })),
      now,
    );
    return { task: updated, changes };
  });
}

function budgetJson(b: Task["budget"]): JsonObject {
  return { usd: b.usd ?? null, tokens: b.tokens ?? null };
}
