import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Task } from "../domain/types.js";
import { isActiveFinding, isActiveTask } from "../domain/types.js";
import { listReviewArtifacts, restoreArtifacts, reviewArtifactPath } from "../engine/artifacts.js";
import { FixpointError } from "../errors.js";
import { fenceUntrusted } from "../findings/fence.js";
import { renderOutstandingFindings } from "../findings/render.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";
import { parseInput } from "./validate.js";

const Input = z
  .object({
    task: z.string().min(1),
    /** The cycle whose review artifact to address (default: the last one). */
    review: z.number().int().min(0).optional(),
    maxCycles: z.number().int().min(1).optional(),
  })
  .strict();
export type ImproveInput = z.input<typeof Input>;

export interface Improvement {
  task: Task;
  origin: Task;
  artifact: string;
  findings: number;
}

/**
 * Queues a manual `improve` task on the finished task's branch and worktree, from a review
 * artifact and the open findings (which come along with their ids and history, so the reviewers
 * verify them). The artifact is read first; the task, its findings and the event are one transaction.
 */
export async function improveTask(
  ctx: Pick<AppContext, "store" | "clock" | "actor" | "dir" | "config">,
  raw: ImproveInput,
): Promise<Improvement> {
  const input = parseInput("improve", Input, raw);
  const origin = await requireTask(ctx.store, input.task);
  if (isActiveTask(origin.status)) {
    throw new FixpointError("usage", `${origin.id} is ${origin.status}; improve a task once it has finished`);
  }
  if (!origin.branch) throw new FixpointError("usage", `${origin.id} has no branch yet; nothing to improve`);
  const reviews = join(ctx.dir, "reviews");
  const stored = await restoreArtifacts(ctx.store, reviews, origin.id, "review");
  // The latest run's artifact of that cycle (or the latest of all), old-style names included.
  const chosen = listReviewArtifacts(reviews, origin.id, stored)
    .filter((a) => input.review === undefined || a.cycle === input.review)
    .at(-1);
  if (chosen === undefined && input.review === undefined) {
    throw new FixpointError("usage", `${origin.id} has no review artifact in ${reviews}`);
  }
  const artifact = chosen?.path ?? reviewArtifactPath(reviews, origin.id, input.review ?? 0);
  const cycle = chosen?.cycle ?? input.review;
  const review = await readFile(artifact, "utf8").catch(() => {
    throw new FixpointError("usage", `no review artifact ${artifact}`);
  });
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const findings = (await tx.listFindings(origin.id)).filter((f) => isActiveFinding(f.status));
    const task = await tx.createTask(
      {
        type: "improve",
        title: `Improve ${origin.id}: ${origin.title}`.slice(0, 100),
        prompt: [
          origin.prompt,
          `## The review to address (cycle ${cycle} of ${origin.id})`,
          fenceUntrusted(`review ${origin.id} cycle ${cycle}`, review),
          findings.length
            ? renderOutstandingFindings(findings, {
                tokenBudget: ctx.config.defaults.findingsTokenBudget,
                blockingSeverity: ctx.config.defaults.blockingSeverity,
              }).text
            : "",
        ].join("\n\n"),
        workflow: "improve",
        repo: origin.repo,
        baseBranch: origin.baseBranch,
        maxCycles: input.maxCycles ?? origin.maxCycles,
        budget: origin.budget,
        agents: origin.agents,
        parentId: origin.id,
        branch: origin.branch,
        worktreePath: origin.worktreePath,
        meta: { origin: origin.id, reviewArtifact: artifact },
      },
      now,
    );
    await tx.saveFindings(
      task.id,
      findings.map((f) => ({ ...f, taskId: task.id })),
      [
        {
          taskId: task.id,
          runId: null,
          type: "improve.created",
          data: {
            origin: origin.id,
            review: artifact,
            findings: findings.map((f) => f.id),
            by: ctx.actor,
            at: new Date(now).toISOString(),
          },
        },
      ],
      now,
    );
    return { task, origin, artifact, findings: findings.length };
  });
}
