import type { Command } from "commander";
import { type CleanAction, cleanTasks } from "../../app/clean.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";

export function registerClean(program: Command, io: Io): void {
  program
    .command("clean")
    .description(
      "remove the worktrees of finished tasks (branches stay; a branch is deleted only with --branches and only when its commits exist elsewhere)",
    )
    .option("--worktrees", "remove worktrees (the default action)")
    .option(
      "--branches",
      "also delete branches whose every commit is reachable from another branch, a remote or a tag",
    )
    .option("--dry-run", "say what would be removed")
    .action(async (opts: { branches?: boolean; dryRun?: boolean }) => {
      const r = await withContext(io, (ctx) =>
        cleanTasks(ctx, { branches: Boolean(opts.branches), dryRun: Boolean(opts.dryRun) }),
      );
      for (const a of r.actions) io.out(`  ${actionLine(a)}\n`);
      io.out(`${r.removed} worktree${r.removed === 1 ? "" : "s"} removed\n`);
    });
}

function actionLine(a: CleanAction): string {
  switch (a.kind) {
    case "removed":
      return `removed ${a.path}`;
    case "would_remove":
      return `would remove ${a.path}`;
    case "kept":
      return `kept ${a.path}: ${a.why}`;
    case "branch_deleted":
      return `deleted branch ${a.branch}`;
    case "branch_kept":
      return `kept branch ${a.branch}: ${a.why}`;
  }
}
