import type { Command } from "commander";
import { improveTask } from "../../app/improve.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";
import { parseWholeNumber } from "../task-ref.js";

export function registerImprove(program: Command, io: Io): void {
  program
    .command("improve")
    .description(
      "queue a manual improve task on the same branch and worktree, from the last (or named) review and the open findings",
    )
    .argument("<id>", "task id")
    .option("--review <n>", "use the review artifact of this cycle (default: the last one)")
    .option("--max-cycles <n>", "fix cycles for the improve task")
    .action(async (ref: string, opts: { review?: string; maxCycles?: string }) => {
      const review = parseWholeNumber("--review", opts.review);
      const maxCycles = parseWholeNumber("--max-cycles", opts.maxCycles, 1);
      const r = await withContext(io, (ctx) =>
        improveTask(ctx, {
          task: ref,
          ...(review !== undefined ? { review } : {}),
          ...(maxCycles !== undefined ? { maxCycles } : {}),
        }),
      );
      io.out(
        `queued ${r.task.id}  improve  ${r.task.title}\n  on ${r.origin.branch}, from ${r.artifact} and ${r.findings} open finding${r.findings === 1 ? "" : "s"}\n`,
      );
    });
}
