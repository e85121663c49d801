import type { Command } from "commander";
import { listTasks } from "../../app/status.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { taskJson } from "../render/json.js";
import { statusTable } from "../render/status.js";

export function registerStatus(program: Command, io: Io): void {
  program
    .command("status")
    .description("one line per task: id, type, title, status, final verdict, cycles, current stage")
    .option("--json", "print JSON: an array of task objects (docs/cli.md)")
    .option("--all", "include cancelled tasks")
    .action(async (opts: { json?: boolean; all?: boolean }) => {
      const tasks = await withContext(io, (ctx) => listTasks(ctx, { all: Boolean(opts.all) }));
      if (opts.json) printJson(io, tasks.map(taskJson));
      else io.out(statusTable(tasks));
    });
}
