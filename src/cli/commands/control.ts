import type { Command } from "commander";
import { cancelTask } from "../../app/cancel.js";
import { editTask } from "../../app/edit-task.js";
import { approve, reject } from "../../app/human.js";
import { FINAL_VERDICTS } from "../../domain/types.js";
import { withContext } from "../context.js";
import type { Io } from "../io.js";
import { parseInteger, parseNumber, parseWholeNumber } from "../task-ref.js";

export function registerControl(program: Command, io: Io): void {
  program
    .command("cancel")
    .description("stop a running or queued task; its worktree and commits stay")
    .argument("<id>", "task id")
    .action(async (ref: string) => {
      const r = await withContext(io, (ctx) => cancelTask(ctx, ref));
      io.out(
        `${r.task.id} cancelled${r.was === "running" ? " (its worker stops the running stage and commits its work)" : ""}\n`,
      );
    });

  program
    .command("edit")
    .description(
      "override the final verdict, or change the cycle bound, budget, priority or notes (recorded as events with who and when)",
    )
    .argument("<id>", "task id")
    .option("--verdict <verdict>", FINAL_VERDICTS.join(" | "))
    .option("--max-cycles <n>", "fix cycles before MAX_CYCLES_REACHED")
    .option("--budget-usd <usd>", "stop the task when it has cost this much (all runs)")
    .option("--budget-tokens <n>", "stop the task when it has used this many tokens (all runs)")
    .option("--priority <n>", "claim order: higher first, then oldest (may be negative)")
    .option("--notes <text>", 'replace the task\'s notes (secrets are redacted; "" clears them)')
    .action(
      async (
        ref: string,
        opts: {
          verdict?: string;
          maxCycles?: string;
          budgetUsd?: string;
          budgetTokens?: string;
          priority?: string;
          notes?: string;
        },
      ) => {
        const input = {
          task: ref,
          ...(opts.verdict !== undefined ? { verdict: opts.verdict } : {}),
          ...optional("maxCycles", parseWholeNumber("--max-cycles", opts.maxCycles, 1)),
          ...optional("budgetUsd", parseNumber("--budget-usd", opts.budgetUsd)),
          ...optional("budgetTokens", parseWholeNumber("--budget-tokens", opts.budgetTokens)),
          ...optional("priority", parseInteger("--priority", opts.priority)),
          ...(opts.notes !== undefined ? { notes: opts.notes } : {}),
        };
        const r = await withContext(io, (ctx) => editTask(ctx, input));
        const verdict = r.changes.verdict;
        if (verdict) io.out(`${r.task.id}: final verdict ${verdict[0] ?? "(none)"} → ${verdict[1]}\n`);
        for (const [field, [from, to]] of Object.entries(r.changes)) {
          if (field !== "verdict")
            io.out(`${r.task.id}: ${field} ${JSON.stringify(from)} → ${JSON.stringify(to)}\n`);
        }
      },
    );

  for (const decision of ["approve", "reject"] as const) {
    const cmd = program
      .command(decision)
      .description(`${decision} the task's waiting \`human\` stage; the task is queued again`)
      .argument("<id>", "task id");
    if (decision === "reject") cmd.requiredOption("--reason <reason>", "why");
    cmd.action(async (ref: string, opts: { reason?: string }) => {
      const r = await withContext(io, (ctx) =>
        decision === "approve"
          ? approve(ctx, { task: ref, ...(opts.reason ? { reason: opts.reason } : {}) })
          : reject(ctx, { task: ref, reason: opts.reason ?? "" }),
      );
      io.out(
        `${r.task.id}: ${decision === "approve" ? "approved" : "rejected"} at ${r.stage}; queued (run \`fixpoint work\`)\n`,
      );
    });
  }
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
