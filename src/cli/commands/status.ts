import type { Command } from "commander";
import type { TaskStatus } from "../../domain/types.js";
import { type Io, printJson } from "../io.js";
import { openProject } from "../project.js";
import { STATUS_PAGE, taskJson, writeTaskJsonStream } from "../render/json.js";
import { statusTable } from "../render/status.js";

const ACTIVE: TaskStatus[] = ["queued", "running", "completed", "needs_human", "failed"];

export function registerStatus(program: Command, io: Io): void {
  program
    .command("status")
    .description("one line per task: id, type, title, status, final verdict, cycles, current stage")
    .option("--json", "print JSON: an array of task objects (docs/cli.md)")
    .option("--all", "include cancelled tasks")
    .action(async (opts: { json?: boolean; all?: boolean }) => {
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const filter = opts.all ? {} : { statuses: ACTIVE };
        if (opts.json && !io.isTTY) {
          await writeTaskJsonStream(io.out, (afterSeq) =>
            project.store.listTaskSummaries({
              ...filter,
              limit: STATUS_PAGE,
              ...(afterSeq === undefined ? {} : { afterSeq }),
            }),
          );
          return;
        }
        const tasks = await project.store.listTaskSummaries(filter);
        if (opts.json) printJson(io, tasks.map(taskJson));
        else io.out(statusTable(tasks));
      } finally {
        await project.close();
      }
    });
}
