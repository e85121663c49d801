import type { AppContext } from "../app/context.js";
import type { ProjectGithub } from "../app/github.js";
import { finishPrRework, reworkPr } from "../app/pr.js";
import type { Io } from "./io.js";
import { runWorkInForeground } from "./run-work.js";

/**
 * `pr rework <n>`: start (or continue) the PR's rework task and run it in the foreground, then
 * file what stayed unresolved as tech-debt issues. Returns the exit code.
 */
export async function reworkPull(
  ctx: AppContext,
  io: Io,
  gh: ProjectGithub,
  prNumber: number,
  opts: { queue: boolean },
): Promise<number> {
  const start = await reworkPr(ctx, gh, prNumber);
  if (start.kind === "closed") {
    io.out(`${start.message}\n`);
    return 0;
  }
  if (start.kind === "limit") {
    io.out(`${start.message}\n`);
    if (start.notified) io.out("notify command ran\n");
    if (start.notifyError) io.err(`${start.notifyError}\n`);
    return 1;
  }
  for (const n of start.notices) io.err(`warning: ${n}\n`);
  const task = start.task;
  io.out(
    `${start.created ? "queued" : "continuing"} ${task.id}  PR #${prNumber}  branch ${task.branch ?? "?"}\n`,
  );
  if (start.resumed) io.out(`${start.resumed}\n`);
  if (opts.queue) return 0;
  const code = await runWorkInForeground(ctx, io, {
    ids: [task.id],
    concurrency: 1,
    once: true,
    watch: false,
  });
  if (code === 130) return code;
  const end = await finishPrRework(ctx, gh, task.id);
  if (end.kind === "closed") {
    io.out(`PR #${end.prNumber ?? "?"} was merged or closed during the rework; nothing more was pushed\n`);
    return 0;
  }
  if (end.kind === "filed") {
    const r = end.issues;
    if (r.created.length || r.existing.length || r.failed.length) {
      const { issuesSummary } = await import("../github/stage/file-issues.js");
      io.out(`tech-debt: ${issuesSummary(r)}\n`);
    }
  }
  return code;
}
