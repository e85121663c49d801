import type { Command } from "commander";
import { MIN_LEASE_MS } from "../../app/work.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";
import { runWorkInForeground } from "../run-work.js";
import { parseWholeNumber } from "../task-ref.js";

interface WorkOptions {
  concurrency?: string;
  once?: boolean;
  watch?: boolean;
  leaseMs?: string;
}

export function registerWork(program: Command, io: Io, exit: { code: number }): void {
  program
    .command("work")
    .description("claim and run queued tasks (all, or the named ones) until the queue is empty")
    .argument("[ids...]", "only these tasks")
    .option("--concurrency <n>", "tasks to run at once", "1")
    .option("--once", "run one task per slot, then stop")
    .option("--watch", "keep polling for new tasks (Ctrl-C to stop)")
    .option("--lease-ms <n>", "how long a claimed task stays this worker's without a renewal (default 30000)")
    .action(async (ids: string[], opts: WorkOptions) => {
      const concurrency = parseWholeNumber("--concurrency", opts.concurrency, 1) ?? 1;
      exit.code = await withContext(io, (ctx) =>
        runWorkInForeground(ctx, io, {
          ids,
          concurrency,
          once: Boolean(opts.once),
          watch: Boolean(opts.watch),
          leaseMs: parseWholeNumber("--lease-ms", opts.leaseMs, MIN_LEASE_MS),
        }),
      );
    });
}
