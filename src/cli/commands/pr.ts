import type { Command } from "commander";
import { projectGithub } from "../../app/github.js";
import { openPr } from "../../app/pr.js";
import { FixpointError } from "../../errors.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";
import { reworkPull } from "../rework.js";

export function registerPr(program: Command, io: Io, exit: { code: number }): void {
  const pr = program
    .command("pr")
    .description("pull requests: publish a task, rework review feedback, watch for feedback");
  pr.command("open")
    .description("push the task's branch and open its pull request (or update the open one)")
    .argument("<task>", "task id")
    .action(async (ref: string) => {
      const r = await withContext(io, async (ctx) => openPr(ctx, await projectGithub(ctx), ref));
      io.out(
        `${r.created ? "opened" : "updated"} PR #${r.pull.number}${r.pull.draft ? " (draft)" : ""}  ${r.pull.url}\n`,
      );
    });
  pr.command("rework")
    .description(
      "address a pull request's review feedback: one rework task per cycle (pr-<n>-cycle-<k>), run now",
    )
    .argument("<number>", "pull request number")
    .option("--queue", "only create the task; a running `fixpoint work` picks it up")
    .action(async (num: string, opts: { queue?: boolean }) => {
      const prNumber = parsePr(num);
      exit.code = await withContext(io, async (ctx) =>
        reworkPull(ctx, io, await projectGithub(ctx), prNumber, { queue: Boolean(opts.queue) }),
      );
    });
  pr.command("watch")
    .description("poll open pull requests labelled for fixpoint and rework those with new feedback")
    .option("--once", "poll once, then stop")
    .option("--interval <seconds>", "seconds between polls", "60")
    .action(async (opts: { once?: boolean; interval: string }) => {
      const interval = Number(opts.interval);
      if (!Number.isFinite(interval) || interval <= 0)
        throw new FixpointError(
          "usage",
          `--interval takes a positive number of seconds, not \`${opts.interval}\``,
        );
      const { watchPulls } = await import("./pr-watch.js");
      exit.code = await withContext(io, async (ctx) =>
        watchPulls(ctx, io, await projectGithub(ctx), {
          once: Boolean(opts.once),
          intervalMs: interval * 1000,
        }),
      );
    });
}

function parsePr(value: string): number {
  const n = Number(value.replace(/^#/, ""));
  if (!Number.isInteger(n) || n <= 0)
    throw new FixpointError("usage", `a pull request number, not \`${value}\``);
  return n;
}
