import type { Command } from "commander";
import { taskDiff } from "../../app/task-diff.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";

export function registerDiff(program: Command, io: Io): void {
  program
    .command("diff")
    .description("the diff of a task's branch against its base (from their merge-base)")
    .argument("<id>", "task id (t-29 or 29)")
    .action(async (ref: string) => {
      const d = await withContext(io, (ctx) => taskDiff(ctx, ref));
      if (d.diff === null) io.err(`${d.taskId} has no branch yet (it has not started)\n`);
      else if (d.diff === "") io.err(`${d.taskId}: ${d.branch} has no changes against ${d.base}\n`);
      else io.out(d.diff.endsWith("\n") ? d.diff : `${d.diff}\n`);
    });
}
