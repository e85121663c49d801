import { existsSync } from "node:fs";
import type { PullRequest } from "../domain/github.js";
import { isActiveTask, isApproval, type Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import type { ReworkStart } from "../github/stage/rework.js";
import type { TechDebtResult } from "../github/tech-debt.js";
import { createProcessRunner } from "../util/process-runner.js";
import type { AppContext } from "./context.js";
import { fileIssues } from "./file-issues.js";
import type { ProjectGithub } from "./github.js";
import { resumeTask } from "./resume.js";
import { requireTask } from "./task-ref.js";

/**
 * Publishes a task: pushes its branch (from its worktree, or the repository once the worktree is
 * gone), then opens its pull request or updates the open one; the PR number is stored last.
 */
export async function openPr(
  ctx: Pick<AppContext, "store" | "clock" | "root">,
  gh: ProjectGithub,
  ref: string,
): Promise<{ task: Task; pull: PullRequest; created: boolean }> {
  const task = await requireTask(ctx.store, ref);
  const { openOrUpdatePull } = await import("../github/stage/open-pr.js");
  const r = await openOrUpdatePull({
    client: gh.client,
    remote: gh.remote,
    store: ctx.store,
    task,
    cwd: task.worktreePath && existsSync(task.worktreePath) ? task.worktreePath : ctx.root,
    findings: await ctx.store.listFindings(task.id),
    draft: gh.config.draft,
    label: gh.config.label,
    approved: isApproval(task.finalVerdict),
    now: ctx.clock.now(),
  });
  if (!r.ok) throw new FixpointError("github", `${task.id}: ${r.reason}`);
  return { task, pull: r.pull, created: r.created };
}

export type PrReworkStart = ReworkStart & {
  /** For a continued task that was waiting for a human: what `resume` said. */
  resumed?: string;
};

/**
 * `pr rework <n>` up to the point where its task runs: stop when the PR closed, escalate at the
 * cycle limit, else create (once) or continue the PR's rework task — resuming it when it stopped
 * at a human stage. The caller then runs the task (`work`) and calls `finishPrRework`.
 */
export async function reworkPr(ctx: AppContext, gh: ProjectGithub, prNumber: number): Promise<PrReworkStart> {
  if (!Number.isInteger(prNumber) || prNumber <= 0) {
    throw new FixpointError("usage", `a pull request number, not \`${prNumber}\``);
  }
  const { startRework } = await import("../github/stage/rework.js");
  const start = await startRework(
    {
      store: ctx.store,
      client: gh.client,
      remote: gh.remote,
      git: ctx.git,
      config: { ...ctx.config, github: gh.config },
      root: ctx.root,
      runner: createProcessRunner(),
      env: ctx.env,
      clock: ctx.clock,
    },
    prNumber,
  );
  if (start.kind !== "run" || start.task.status !== "needs_human" || start.task.currentStage === null)
    return start;
  const resumed = await resumeTask(ctx, start.task.id);
  return { ...start, task: resumed.task, resumed: resumed.message };
}

export type PrReworkEnd =
  | { kind: "unfinished" }
  | { kind: "closed"; prNumber: number | null }
  | { kind: "filed"; issues: TechDebtResult };

/** After the rework task ran: did the PR close meanwhile? Else file what stayed unresolved. */
export async function finishPrRework(
  ctx: Pick<AppContext, "store" | "clock" | "config">,
  gh: ProjectGithub,
  taskId: string,
): Promise<PrReworkEnd> {
  const task = await requireTask(ctx.store, taskId);
  if (isActiveTask(task.status)) return { kind: "unfinished" };
  const events = await ctx.store.listEvents(task.id);
  if (events.some((e) => e.type === "stage.finished" && e.data.next === "pr_closed")) {
    return { kind: "closed", prNumber: task.meta.prNumber ?? null };
  }
  return { kind: "filed", issues: (await fileIssues(ctx, gh, task.id)).result };
}

/** One poll of the labelled open PRs: which need a rework now, and why the others are skipped. */
export async function pollPrs(ctx: Pick<AppContext, "store" | "clock" | "root">, gh: ProjectGithub) {
  const { pollPulls } = await import("../github/stage/watch.js");
  return pollPulls({
    client: gh.client,
    remote: gh.remote,
    store: ctx.store,
    config: gh.config,
    root: ctx.root,
    clock: ctx.clock,
  });
}
