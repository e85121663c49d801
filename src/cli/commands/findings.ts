import type { Command } from "commander";
import { dismissFinding, reopenFinding } from "../../app/finding-status.js";
import { listFindings } from "../../app/findings.js";
import { FINDING_STATUSES, type FindingStatus } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { findingsHistory, findingsTable } from "../render/findings-table.js";
import { findingJson } from "../render/json.js";
import { learningJson } from "../render/learnings.js";

export function registerFindings(program: Command, io: Io): void {
  const findings = program
    .command("findings")
    .description("the findings registry of a task as a table")
    .argument("<id>", "task id")
    .option("--status <status>", `only findings with this status (${FINDING_STATUSES.join(", ")})`)
    .option("--history", "each finding's sources and fix attempts")
    .option("--json", "print JSON: an array of findings (docs/cli.md)")
    .action(async (ref: string, opts: { status?: string; json?: boolean; history?: boolean }) => {
      const status = FINDING_STATUSES.find((s) => s === opts.status);
      if (opts.status && !status) {
        throw new FixpointError(
          "usage",
          `unknown status \`${opts.status}\` (one of ${FINDING_STATUSES.join(", ")})`,
        );
      }
      const findings = await withContext(io, (ctx) =>
        listFindings(ctx, { task: ref, ...(status ? { status: status satisfies FindingStatus } : {}) }),
      );
      if (opts.json) printJson(io, findings.map(findingJson));
      else if (opts.history) io.out(`${findingsHistory(findings)}\n`);
      else io.out(findingsTable(findings));
    });

  findings
    .command("dismiss")
    .description(
      "dismiss a finding (fixpoint will not fix it) with your reason; the reason becomes a learning that reviewers are told and that dismisses the same finding on later tasks",
    )
    .argument("<task>", "task id")
    .argument("<finding>", "finding id (F-3)")
    .option("--reason <text>", "why it is not a problem (required)")
    .option("--no-learn", "dismiss without recording a learning")
    .option("--json", "print JSON: {finding, learning} (docs/cli.md)")
    .action(
      async (task: string, finding: string, opts: { reason?: string; learn: boolean }, cmd: Command) => {
        if (opts.reason === undefined) {
          throw new FixpointError("usage", 'a dismissal needs a reason: --reason "…"');
        }
        const reason = opts.reason;
        const r = await withContext(io, (ctx) =>
          dismissFinding(ctx, { task, finding, reason, learn: opts.learn }),
        );
        // `--json` after the subcommand is read by the parent `findings` first: look at both.
        if (cmd.optsWithGlobals().json === true) {
          printJson(io, {
            finding: findingJson(r.finding),
            learning: r.learning ? learningJson(r.learning) : null,
          });
        } else io.out(`${r.taskId}: ${r.message}\n`);
      },
    );

  findings
    .command("reopen")
    .description(
      "open a finding again (a dismissal or a fix that did not hold); removes the learning its dismissal recorded",
    )
    .argument("<task>", "task id")
    .argument("<finding>", "finding id (F-3)")
    .option("--reason <text>", "why (recorded with the event)")
    .action(async (task: string, finding: string, opts: { reason?: string }) => {
      const r = await withContext(io, (ctx) =>
        reopenFinding(ctx, { task, finding, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) }),
      );
      io.out(`${r.taskId}: ${r.message}\n`);
    });
}
