import type { Command } from "commander";
import type { Io } from "../io.js";
import { openProject } from "../project.js";
import { requireTask } from "../task-ref.js";
import { fileIssuesOf, projectGithub } from "./pr.js";

/**
 * `fixpoint findings file-issues <task>`: the task's blocked and deferred findings (and the
 * non-blocking follow-ups when `defaults.followups` is on) as GitHub issues, each filed once.
 * Registered under the `findings` command.
 */
export function registerFileIssues(program: Command, io: Io, exit: { code: number }): void {
  const findings = program.commands.find((c) => c.name() === "findings");
  (findings ?? program)
    .command("file-issues")
    .description("file the task's unresolved findings as tech-debt issues on GitHub (each at most once)")
    .argument("<task>", "task id")
    .action(async (ref: string) => {
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const gh = await projectGithub(project, io.env);
        const task = await requireTask(project.store, ref);
        const { issuesSummary } = await import("../../github/stage/file-issues.js");
        const r = await fileIssuesOf(project, gh, task);
        io.out(`${task.id}: ${issuesSummary(r)}\n`);
        for (const c of r.created) io.out(`  ${c.findingId} → #${c.number} ${c.url}\n`);
        if (r.failed.length) exit.code = 1;
      } finally {
        await project.close();
      }
    });
}
