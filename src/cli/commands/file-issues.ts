import type { Command } from "commander";
import { fileIssues } from "../../app/file-issues.js";
import { projectGithub } from "../../app/github.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";

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
      const { task, result: r } = await withContext(io, async (ctx) =>
        fileIssues(ctx, await projectGithub(ctx), ref),
      );
      const { issuesSummary } = await import("../../github/stage/file-issues.js");
      io.out(`${task.id}: ${issuesSummary(r)}\n`);
      for (const c of r.created) io.out(`  ${c.findingId} → #${c.number} ${c.url}\n`);
      if (r.failed.length) exit.code = 1;
    });
}
