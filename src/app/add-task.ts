import { z } from "zod";
import { TASK_TYPES, type Task } from "../domain/types.js";
import { exceedsMaxStages, maxStagesFor } from "../engine/max-stages.js";
import { FixpointError } from "../errors.js";
import { redactSecrets } from "../util/redact.js";
import { loadWorkflow } from "../workflow/loader.js";
import type { AppContext } from "./context.js";
import { parseInput } from "./validate.js";

export const AddTaskInput = z
  .object({
    prompt: z.string().refine((p) => p.trim() !== "", "a task needs a prompt"),
    type: z.enum(TASK_TYPES).default("implement"),
    title: z.string().min(1).optional(),
    /** Default: `defaults.workflow` of the config (`implement-only` with `review: false`). */
    workflow: z.string().min(1).optional(),
    /** false: implement and run the gates only. */
    review: z.boolean().default(true),
    /** Default: the current branch (or `defaults.base-branch`). */
    base: z.string().min(1).optional(),
    /** Configured agent to implement and fix with. */
    agent: z.string().min(1).optional(),
    reviewAgent: z.string().min(1).optional(),
    maxCycles: z.number().int().min(1).optional(),
    budgetUsd: z.number().finite().min(0).optional(),
    /** Claim order: higher first, then oldest. Default 0. */
    priority: z.number().int().optional(),
    /** Free text kept on the task; secrets are redacted before it is stored. */
    notes: z.string().optional(),
  })
  .strict();
export type AddTaskInput = z.input<typeof AddTaskInput>;

/** Queues a task: checks its workflow, base branch and agents, then stores it with its event. */
export async function addTask(ctx: AppContext, raw: AddTaskInput): Promise<Task> {
  const input = parseInput("addTask", AddTaskInput, raw);
  const { config, git, root } = ctx;
  const workflow = input.workflow ?? (input.review ? config.defaults.workflow : "implement-only");
  const steps = await loadWorkflow(workflow, root);
  // A workflow no run can finish within `max-stages` is refused here, not escalated once claimed.
  const tooLong = exceedsMaxStages(steps, { next: steps.start, stagesRun: 0 }, maxStagesFor(config, steps));
  if (tooLong !== null) throw new FixpointError("usage", tooLong);
  const base = input.base ?? config.defaults.baseBranch ?? (await git.currentBranch(root));
  if (!base || !(await git.revParse(root, base))) {
    throw new FixpointError(
      "usage",
      `base branch \`${base ?? "(detached HEAD)"}\` not found; pass --base <branch>`,
    );
  }
  const agents: Record<string, string> = {};
  for (const [role, name] of [
    ["implementer", input.agent],
    ["fixer", input.agent],
    ["reviewer", input.reviewAgent],
  ] as const) {
    if (!name) continue;
    if (!config.agents[name]) {
      throw new FixpointError(
        "usage",
        `unknown agent \`${name}\` (configured: ${Object.keys(config.agents).join(", ")})`,
      );
    }
    agents[role] = name;
  }
  const budget =
    input.budgetUsd === undefined
      ? config.defaults.budget
      : { ...config.defaults.budget, usd: input.budgetUsd };
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const task = await tx.createTask(
      {
        type: input.type,
        title: input.title ?? titleOf(input.prompt),
        prompt: input.prompt.trim(),
        workflow,
        repo: root,
        baseBranch: base,
        maxCycles: input.maxCycles ?? config.defaults.maxCycles,
        priority: input.priority ?? 0,
        notes: cleanNotes(input.notes, ctx.env),
        budget,
        agents,
        meta: input.review ? {} : { noReview: true },
      },
      now,
    );
    await tx.appendEvents(
      [
        {
          taskId: task.id,
          runId: null,
          type: "task.queued",
          data: {
            workflow,
            base,
            maxCycles: task.maxCycles,
            priority: task.priority,
            by: ctx.actor,
            at: new Date(now).toISOString(),
          },
        },
      ],
      now,
    );
    return task;
  });
}

function titleOf(prompt: string): string {
  const first = prompt.trim().split("\n")[0] ?? "";
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}

/** Notes as stored: trimmed, secrets redacted; blank is none. */
export function cleanNotes(notes: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (notes === undefined) return null;
  const trimmed = notes.trim();
  return trimmed === "" ? null : redactSecrets(trimmed, env);
}
