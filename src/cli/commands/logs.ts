import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import type { TaskEvent } from "../../domain/types.js";
import { type Io, printJson } from "../io.js";
import { openProject } from "../project.js";
import { eventJson } from "../render/json.js";
import { requireTask } from "../task-ref.js";

export function registerLogs(program: Command, io: Io): void {
  program
    .command("logs")
    .description("the event log of a task (and the agent transcripts with --agent)")
    .argument("<id>", "task id")
    .option("-f, --follow", "keep printing new events until the task stops running")
    .option("--agent", "print the agent transcripts too")
    .option("--json", "one JSON object per event")
    .action(async (ref: string, opts: { follow?: boolean; agent?: boolean; json?: boolean }) => {
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const task = await requireTask(project.store, ref);
        const print = (e: TaskEvent) =>
          opts.json ? printJson(io, eventJson(e)) : io.out(`${eventLine(e)}\n`);
        let last = 0;
        for (;;) {
          const events = await project.store.listEvents(task.id, last);
          for (const e of events) print(e);
          last = events.at(-1)?.id ?? last;
          if (!opts.follow) break;
          const now = await project.store.getTask(task.id);
          if (now && now.status !== "running" && now.status !== "queued") break;
          await new Promise((r) => setTimeout(r, 500));
        }
        if (opts.agent) {
          const dir = join(project.dir, "transcripts", task.id);
          const files = (await readdir(dir).catch(() => [] as string[])).sort();
          for (const f of files) io.out(`\n===== ${f}\n${await readFile(join(dir, f), "utf8")}`);
        }
      } finally {
        await project.close();
      }
    });
}

function eventLine(e: TaskEvent): string {
  const t = new Date(e.ts).toISOString().slice(11, 19);
  const data = Object.entries(e.data)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(
      ([k, v]) =>
        `${k}=${typeof v === "string" ? (v.includes(" ") ? JSON.stringify(v) : v) : JSON.stringify(v)}`,
    )
    .join(" ");
  return `${t}  ${e.type.padEnd(22)} ${data}`;
}
