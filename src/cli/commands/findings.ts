import type { Command } from "commander";
import { FINDING_STATUSES } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { type Io, printJson } from "../io.js";
import { openProject } from "../project.js";
import { findingHistory, findingsTable } from "../render/findings-table.js";
import { findingJson } from "../render/json.js";
import { requireTask } from "../task-ref.js";

export function registerFindings(program: Command, io: Io): void {
  program
    .command("findings")
    .description("the findings registry of a task as a table")
    .argument("<id>", "task id")
    .option("--status <status>", `only findings with this status (${FINDING_STATUSES.join(", ")})`)
    .option("--history", "each finding's sources and fix attempts")
    .option("--json", "print JSON: an array of findings (docs/cli.md)")
    .action(async (ref: string, opts: { status?: string; json?: boolean; history?: boolean }) => {
      if (opts.status && !(FINDING_STATUSES as readonly string[]).includes(opts.status)) {
        throw new FixpointError(
          "usage",
          `unknown status \`${opts.status}\` (one of ${FINDING_STATUSES.join(", ")})`,
        );
      }
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const task = await requireTask(project.store, ref);
        const all = await project.store.listFindings(task.id);
        const findings = opts.status ? all.filter((f) => f.status === opts.status) : all;
        if (opts.json) printJson(io, findings.map(findingJson));
        else if (opts.history) io.out(`${findings.map(findingHistory).join("\n")}\n`);
        else io.out(findingsTable(findings));
      } finally {
        await project.close();
      }
    });
}
