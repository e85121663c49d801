import type { Command } from "commander";
import { listTasks, listTasksPage } from "../../app/status.js";
import { taskHolders } from "../../app/workers.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { STATUS_PAGE, taskJson, writeTaskJsonStream } from "../render/json.js";
import { statusTable } from "../render/status.js";

export function registerStatus(program: Command, io: Io): void {
  program
    .command("status")
    .description("one line per task: id, type, title, status, final verdict, cycles, current stage")
    .option("--json", "print JSON: an array of task objects (docs/cli.md)")
    .option("--all", "include cancelled tasks")
    .action(async (opts: { json?: boolean; all?: boolean }) => {
      await withContext(io, async (ctx) => {
        const all = Boolean(opts.all);
        if (opts.json && !io.isTTY) {
          await writeTaskJsonStream(io.out, (afterSeq) =>
            listTasksPage(ctx, { all, limit: STATUS_PAGE, afterSeq }),
          );
          return;
        }
        const tasks = await listTasks(ctx, { all });
        if (opts.json) printJson(io, tasks.map(taskJson));
        else {
          io.out(statusTable(tasks));
          io.out(holdersSection(await taskHolders(ctx.store)));
        }
      });
    });
}

/** Which host and worker holds each running task, and when its lease ends (UTC, the store's clock). */
function holdersSection(holders: Awaited<ReturnType<typeof taskHolders>>): string {
  if (holders.length === 0) return "";
  const lines = holders.map((h) => {
    const until =
      h.leaseExpiresAt === null ? "no lease" : `lease until ${new Date(h.leaseExpiresAt).toISOString()}`;
    return `  ${h.taskId}  on ${h.host}  worker ${h.workerId}  ${until}\n`;
  });
  return `\nheld by:\n${lines.join("")}`;
}
