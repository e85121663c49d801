import type { Command } from "commander";
import { isApproval } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import type { Io } from "../io.js";
import { openProject, type Project } from "../project.js";
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
      const project = await openProject(io.cwd, { env: io.env });
      try {
        exit.code = await work(project, io, {
          ids,
          concurrency: parsePositiveInt("--concurrency", opts.concurrency) ?? 1,
          once: Boolean(opts.once),
          watch: Boolean(opts.watch),
        });
      } finally {
        await project.close();
      }
    });
}

/** Runs the worker in the foreground with progress lines; SIGINT/SIGTERM stop it cleanly. Returns the exit code. */
export async function work(
  project: Project,
  io: Io,
  opts: { ids: string[]; concurrency: number; once: boolean; watch: boolean },
): Promise<number> {
  // Loaded here, not at start-up: read commands such as `status` never pay for the engine.
  const [{ runWorker }, { buildEngineDeps }, { createProgressReporter }] = await Promise.all([
    import("../../engine/worker.js"),
    import("../engine-deps.js"),
    import("../render/progress.js"),
  ]);
  const reporter = createProgressReporter({ write: io.out, isTTY: io.isTTY });
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    io.err(`\n${sig}: stopping the running stage, committing its work; \`fixpoint resume\` continues\n`);
    controller.abort(sig);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // A closed terminal stops the worker cleanly too (by default SIGHUP would end it at once).
  process.on("SIGHUP", onSignal);
  try {
    const ids = [];
    for (const ref of opts.ids) {
      const t = await project.store.getTask(ref);
      if (!t) throw new FixpointError("not_found", `no task \`${ref}\``);
      ids.push(t.id);
    }
    const deps = await buildEngineDeps(project, reporter.onEvent);
    const summary = await runWorker(deps, {
      ids: ids.length ? ids : undefined,
      concurrency: opts.concurrency,
      once: opts.once,
      watch: opts.watch,
      signal: controller.signal,
    });
    reporter.close();
    if (summary.ran.length === 0 && summary.errors.length === 0 && !controller.signal.aborted) {
      io.out(ids.length ? "Nothing to run: the named tasks are not queued.\n" : "No queued tasks.\n");
    }
    for (const e of summary.errors) io.err(`${e.taskId}: ${e.message}\n`);
    if (controller.signal.aborted) return 130;
    const unapproved = summary.ran.some((r) => !isApproval(r.verdict as never)) || summary.errors.length > 0;
    return ids.length && unapproved ? 1 : 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
  }
}
