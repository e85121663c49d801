import { existsSync } from "node:fs";
import type { Command } from "commander";
import { errorMessage } from "../../errors.js";
import type { Io } from "../io.js";
import { openProject } from "../project.js";

const FINISHED = new Set(["completed", "cancelled"]);

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
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const { store, git } = project;
        const tasks = (await store.listTasks()).filter(
          (t) => FINISHED.has(t.status) && (t.worktreePath || (opts.branches && t.branch)),
        );
        let removed = 0;
        for (const t of tasks) {
          const path = t.worktreePath;
          if (path && existsSync(path)) {
            const dirty = await git.status(path).catch(() => []);
            if (dirty.length) {
              io.out(`  kept ${path}: it has uncommitted changes\n`);
              continue;
            }
            if (opts.dryRun) io.out(`  would remove ${path}\n`);
            else {
              try {
                await git.removeWorktree(t.repo, path);
                removed++;
                io.out(`  removed ${path}\n`);
              } catch (e) {
                io.out(`  kept ${path}: ${errorMessage(e)}\n`);
                continue;
              }
            }
          }
          if (opts.branches && t.branch && !opts.dryRun && (await git.branchExists(t.repo, t.branch))) {
            if (await git.isBranchSafeToDelete(t.repo, t.branch)) {
              await git.deleteBranch(t.repo, t.branch);
              io.out(`  deleted branch ${t.branch}\n`);
            } else {
              io.out(`  kept branch ${t.branch}: it has commits that exist nowhere else\n`);
            }
          }
          if (!opts.dryRun && path) await store.updateTask(t.id, { worktreePath: null }, Date.now());
        }
        io.out(`${removed} worktree${removed === 1 ? "" : "s"} removed\n`);
      } finally {
        await project.close();
      }
    });
}
