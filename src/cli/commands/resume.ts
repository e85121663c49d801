import type { Command } from "commander";
import { contextOf, type Project } from "../../app/project.js";
import { type Restart, resumeTask } from "../../app/resume.js";
import { retryTask } from "../../app/retry.js";
import type { Task } from "../../domain/types.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";
import { runWorkInForeground } from "../run-work.js";

export function registerResume(program: Command, io: Io, exit: { code: number }): void {
  const commands = [
    {
      name: "resume",
      description:
        "continue the last run from its checkpoint; after a review failure, restart the fix loop with the stored blocking findings; a task whose worker died is taken over once its lease expired",
    },
    {
      name: "retry",
      description: "a new run from the failed phase with a fresh agent session; the registry is kept",
    },
  ] as const;
  for (const c of commands) {
    const cmd = program
      .command(c.name)
      .description(c.description)
      .argument("<id>", "task id")
      .option("--queue", "only queue it; a running `fixpoint work` picks it up");
    if (c.name === "retry") cmd.option("--force", "retry a task that already ended approved (runs it again)");
    if (c.name === "resume")
      cmd.option(
        "--feedback <text>",
        "what you want changed: an open blocking finding the fix loop must answer",
      );
    cmd.action(async (ref: string, opts: { queue?: boolean; force?: boolean; feedback?: string }) => {
      await withContext(io, async (ctx) => {
        const r: Restart =
          c.name === "resume"
            ? await resumeTask(ctx, {
                task: ref,
                ...(opts.feedback !== undefined ? { feedback: opts.feedback } : {}),
              })
            : await retryTask(ctx, { task: ref, force: Boolean(opts.force) });
        if (r.tookOver) io.err(`${r.task.id}: its worker's lease had expired; taking the task over\n`);
        io.out(`${r.message}\n`);
        if (!opts.queue) {
          exit.code = await runWorkInForeground(ctx, io, {
            ids: [r.task.id],
            concurrency: 1,
            once: true,
            watch: false,
          });
        }
      });
    });
  }
}

/** `resume` for callers holding an open Project (tests, older callers): returns the message. */
export async function prepareResume(project: Project, task: Task): Promise<string> {
  return (await resumeTask(contextOf(project), task.id)).message;
}

/** `retry --force` for callers holding an open Project: returns the message. */
export async function prepareRetry(project: Project, task: Task): Promise<string> {
  return (await retryTask(contextOf(project), { task: task.id, force: true })).message;
}
