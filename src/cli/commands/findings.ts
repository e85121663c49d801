import type { Command } from "commander";
import { listFindings } from "../../app/findings.js";
import { FINDING_STATUSES, type FindingStatus } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { findingHistory, findingsTable } from "../render/findings-table.js";
import { findingJson } from "../render/json.js";

export function registerFindings(program: Command, io: Io): void {
  program
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
      else if (opts.history) io.out(`${findings.map(findingHistory).join("\n")}\n`);
      else io.out(findingsTable(findings));
    });
}
