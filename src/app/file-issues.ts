import type { Task } from "../domain/types.js";
import type { TechDebtResult } from "../github/tech-debt.js";
import type { AppContext } from "./context.js";
import type { ProjectGithub } from "./github.js";
import { requireTask } from "./task-ref.js";

/**
 * Files a task's unresolved findings (blocked, deferred, and the non-blocking follow-ups when
 * `defaults.followups` is on) as tech-debt issues; each at most once (an idempotency marker per
 * finding is written after its issue exists, so a crash in between finds the issue again).
 */
export async function fileIssues(
  ctx: Pick<AppContext, "store" | "clock" | "config">,
  gh: Pick<ProjectGithub, "client" | "config">,
  ref: string,
): Promise<{ task: Task; result: TechDebtResult }> {
  const task = await requireTask(ctx.store, ref);
  const { fileTaskIssues } = await import("../github/stage/file-issues.js");
  const result = await fileTaskIssues({
    client: gh.client,
    store: ctx.store,
    task,
    findings: await ctx.store.listFindings(task.id),
    label: gh.config.techDebtLabel,
    followups: ctx.config.defaults.followups,
    blockingSeverity: ctx.config.defaults.blockingSeverity,
    now: ctx.clock.now(),
  });
  return { task, result };
}
