import type { Command } from "commander";
import { checkoutTask } from "../../app/checkout.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";

export function registerCheckout(program: Command, io: Io, exit: { code: number }): void {
  program
    .command("checkout")
    .description("check out a task's branch in this checkout (clean working tree), or print its worktree")
    .argument("<id>", "task id (t-29 or 29)")
    .option("--worktree", 'print the task\'s worktree path instead (cd "$(fixpoint checkout 29 --worktree)")')
    .action(async (ref: string, opts: { worktree?: boolean }) => {
      const r = await withContext(io, (ctx) => checkoutTask(ctx, ref, { worktree: Boolean(opts.worktree) }));
      switch (r.kind) {
        case "worktree":
          io.out(`${r.path}\n`);
          return;
        case "already":
          io.out(`${r.branch} is already checked out (${r.taskId})\n`);
          return;
        case "checked_out":
          io.out(
            `Switched to ${r.branch} (${r.taskId})${r.previous ? `; \`git switch ${r.previous}\` goes back` : ""}\n`,
          );
          return;
        case "refused":
          io.err(`fixpoint: ${r.reason}\n`);
          exit.code = 1;
          return;
      }
    });
}
