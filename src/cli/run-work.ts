import type { AppContext } from "../app/context.js";
import { work } from "../app/work.js";
import type { Io } from "./io.js";
import { stdout } from "./std-streams.js";

/**
 * Runs the worker in the foreground with progress lines. The first SIGTERM/SIGINT/SIGHUP drains
 * it (no new claims; each running stage finishes and is recorded, its task goes back to the
 * queue; the worker leaves the registry and exits 0); a second one stops the running stages at
 * once (their work committed, tasks resumable; exit 130). Otherwise 1 when a named task did not
 * end approved.
 */
export async function runWorkInForeground(
  ctx: AppContext,
  io: Io,
  opts: { ids: string[]; concurrency: number; once: boolean; watch: boolean; leaseMs?: number | undefined },
): Promise<number> {
  // Loaded here, not at start-up: read commands such as `status` never pay for it.
  const { createProgressReporter } = await import("./render/progress.js");
  const reporter = createProgressReporter(
    { write: io.out, isTTY: io.isTTY, columns: stdout().columns },
    { now: () => ctx.clock.now(), taskIds: opts.concurrency > 1 },
  );
  const controller = new AbortController();
  const drain = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    if (!drain.signal.aborted) {
      io.err(
        `\n${sig}: draining: no new tasks; running stages finish, then their tasks go back to the queue (${sig} again stops at once)\n`,
      );
      drain.abort(sig);
      return;
    }
    io.err(`\n${sig}: stopping the running stage, committing its work; \`fixpoint resume\` continues\n`);
    controller.abort(sig);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // A closed terminal stops the worker cleanly too (by default SIGHUP would end it at once).
  process.on("SIGHUP", onSignal);
  try {
    const r = await work(ctx, opts, {
      signal: controller.signal,
      drain: drain.signal,
      listener: reporter.onEvent,
    });
    reporter.close();
    if (r.ran.length === 0 && r.errors.length === 0 && !r.aborted && !r.drained) {
      io.out(r.ids.length ? "Nothing to run: the named tasks are not queued.\n" : "No queued tasks.\n");
    }
    for (const e of r.errors) io.err(`${e.taskId}: ${e.message}\n`);
    if (r.aborted) return 130;
    if (r.drained) return r.errors.length > 0 ? 1 : 0;
    return r.allApproved ? 0 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
  }
}
