import { z } from "zod";
import { FINAL_VERDICTS, type FinalVerdict, isApproval } from "../domain/types.js";
import type { EngineListener } from "../engine/events.js";
import type { WorkerSummary } from "../engine/worker.js";
import { FixpointError } from "../errors.js";
import type { AppContext } from "./context.js";
import type { EngineWiring } from "./engine-deps.js";
import { parseInput } from "./validate.js";

/** The shortest lease (ms) `work` accepts: the CLI names it when `--lease-ms` is below it. */
export const MIN_LEASE_MS = 100;

const Input = z
  .object({
    /** Only these tasks (`t-3` or `3`); every queued task when empty. */
    ids: z.array(z.string().min(1)).default([]),
    concurrency: z.number().int().min(1).default(1),
    /** Run one task per slot, then stop. */
    once: z.boolean().default(false),
    /** Keep polling for new tasks instead of stopping when the queue is empty. */
    watch: z.boolean().default(false),
    leaseMs: z.number().int().min(MIN_LEASE_MS).optional(),
    pollMs: z.number().int().min(1).optional(),
  })
  .strict();
export type WorkInput = z.input<typeof Input>;

export interface WorkResult extends WorkerSummary {
  /** The task ids that were asked for (resolved), empty for "every queued task". */
  ids: string[];
  aborted: boolean;
  /** Drained (first SIGTERM): stopped claiming, handed its unfinished tasks back to the queue. */
  drained: boolean;
  /** Every named task that ran ended approved, and nothing failed (always true without ids). */
  allApproved: boolean;
}

/**
 * Starts a worker in this process: claims queued tasks and runs them to a verdict. Aborting
 * `drain` stops claiming and hands each task back to the queue once its running stage is
 * recorded; aborting `signal` stops the running stages, commits their work and leaves the tasks
 * resumable.
 */
export async function work(
  ctx: AppContext,
  raw: WorkInput,
  opts: { signal?: AbortSignal; drain?: AbortSignal; listener?: EngineListener; wiring?: EngineWiring } = {},
): Promise<WorkResult> {
  const input = parseInput("work", Input, raw);
  const ids: string[] = [];
  for (const ref of input.ids) {
    const t = await ctx.store.getTask(ref);
    if (!t) throw new FixpointError("not_found", `no task \`${ref}\``);
    ids.push(t.id);
  }
  // Loaded here: read-only callers never pay for importing the engine and the agent backends.
  const [{ runWorker }, { buildEngineDeps }] = await Promise.all([
    import("../engine/worker.js"),
    import("./engine-deps.js"),
  ]);
  const signal = opts.signal ?? new AbortController().signal;
  const notify = await localNotifier(ctx, opts.listener ?? (() => undefined));
  const deps = await buildEngineDeps(ctx, notify.listener, opts.wiring);
  const summary = await runWorker(deps, {
    ids: ids.length ? ids : undefined,
    concurrency: input.concurrency,
    once: input.once,
    watch: input.watch,
    signal,
    ...(opts.drain ? { drain: opts.drain } : {}),
    ...(input.leaseMs !== undefined ? { leaseMs: input.leaseMs } : {}),
    ...(input.pollMs !== undefined ? { pollMs: input.pollMs } : {}),
  });
  await notify.settle();
  const unapproved = summary.ran.some((r) => !isApproval(asVerdict(r.verdict))) || summary.errors.length > 0;
  const drained = !signal.aborted && opts.drain?.aborted === true;
  return { ...summary, ids, aborted: signal.aborted, drained, allApproved: !(ids.length && unapproved) };
}

/** The listener, telling `ctx.notifier` or the configured `notify` (if any) when a task ends or needs a person. */
async function localNotifier(ctx: AppContext, listener: EngineListener) {
  const target = ctx.config.notify;
  if (ctx.notifier === undefined && target === undefined) return { listener, settle: async () => undefined };
  const [{ notifyingListener }, { createNotifier }, { createProcessRunner }] = await Promise.all([
    import("./notify-on-end.js"),
    import("../notify/notifier.js"),
    import("../util/process-runner.js"),
  ]);
  const notifier =
    ctx.notifier ??
    createNotifier(target ?? "", { runner: createProcessRunner(), cwd: ctx.root, env: ctx.env });
  return notifyingListener(listener, notifier, ctx);
}

function asVerdict(v: string | null): FinalVerdict | null {
  return FINAL_VERDICTS.find((f) => f === v) ?? null;
}
