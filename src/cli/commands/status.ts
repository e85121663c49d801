import type { Command } from "commander";
import { taskHolders } from "../../app/workers.js";
import type { TaskStatus } from "../../domain/types.js";
import { type Io, printJson } from "../io.js";
import { openProject } from "../project.js";
import { taskJson } from "../render/json.js";
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
        const tasks = await project.store.listTaskSummaries(opts.all ? {} : { statuses: ACTIVE });
        if (opts.json) printJson(io, tasks.map(taskJson));
        else {
          io.out(statusTable(tasks));
          io.out(holdersSection(await taskHolders(project.store)));
        }
      } finally {
        await project.close();
      }
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
