import type { AppContext } from "../../app/context.js";
import type { ProjectGithub } from "../../app/github.js";
import { pollPrs } from "../../app/pr.js";
import type { Io } from "../io.js";
import { reworkPull } from "../rework.js";

/**
 * `pr watch`: poll the labelled open PRs; rework each one with new feedback, one at a time.
 * Stops after one poll with `once`, else on SIGINT/SIGTERM between polls.
 */
export async function watchPulls(
  ctx: AppContext,
  io: Io,
  gh: ProjectGithub,
  opts: { once: boolean; intervalMs: number },
): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let code = 0;
  try {
    for (;;) {
      const poll = await pollPrs(ctx, gh);
      for (const line of poll.skipped) io.out(`  ${line}\n`);
      for (const s of poll.start) {
        io.out(
          s.continuing
            ? `PR #${s.pr}: ${s.continuing}\n`
            : `PR #${s.pr}: ${s.threads} thread${s.threads === 1 ? "" : "s"} with new feedback at ${s.head.slice(0, 12)}\n`,
        );
        const c = await reworkPull(ctx, io, gh, s.pr, { queue: false });
        if (c === 130) return c;
        code = Math.max(code, c);
      }
      if (opts.once || stop.signal.aborted) return code;
      await ctx.clock.sleep(opts.intervalMs, stop.signal);
      if (stop.signal.aborted) return code;
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
