import type { Command } from "commander";
import { withContext } from "../context.js";
import type { Io } from "../io.js";
import { runWorkInForeground } from "../run-work.js";
import { parsePositiveInt } from "../task-ref.js";

interface WorkOptions {
  concurrency?: string;
  once?: boolean;
  watch?: boolean;
}

export function registerWork(program: Command, io: Io, exit: { code: number }): void {
  program
    .command("work")
    .description("claim and run queued tasks (all, or the named ones) until the queue is empty")
    .argument("[ids...]", "only these tasks")
    .option("--concurrency <n>", "tasks to run at once", "1")
    .option("--once", "run one task per slot, then stop")
    .option("--watch", "keep polling for new tasks (Ctrl-C to stop)")
    .action(async (ids: string[], opts: WorkOptions) => {
      const concurrency = parsePositiveInt("--concurrency", opts.concurrency) ?? 1;
      exit.code = await withContext(io, (ctx) =>
        runWorkInForeground(ctx, io, {
          ids,
          concurrency,
          once: Boolean(opts.once),
          watch: Boolean(opts.watch),
        }),
      );
    });
}
