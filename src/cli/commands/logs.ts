import type { Command } from "commander";
import { eachTaskTranscript, taskEvents } from "../../app/logs.js";
import type { TaskEvent } from "../../domain/types.js";
import { isActiveTask } from "../../domain/types.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { eventJson } from "../render/json.js";

export function registerLogs(program: Command, io: Io): void {
  program
    .command("logs")
    .description("the event log of a task (and the agent transcripts with --agent)")
    .argument("<id>", "task id")
    .option("-f, --follow", "keep printing new events until the task stops running")
    .option("--agent", "print the agent transcripts too")
    .option("--json", "one JSON object per event")
    .action(async (ref: string, opts: { follow?: boolean; agent?: boolean; json?: boolean }) => {
      await withContext(io, async (ctx) => {
        const print = (e: TaskEvent) =>
          opts.json ? printJson(io, eventJson(e)) : io.out(`${eventLine(e)}\n`);
        let last = 0;
        for (;;) {
          const log = await taskEvents(ctx, { task: ref, afterId: last });
          for (const e of log.events) print(e);
          last = log.events.at(-1)?.id ?? last;
          if (!opts.follow || !isActiveTask(log.status)) break;
          await ctx.clock.sleep(500);
        }
        if (opts.agent) {
          for await (const t of eachTaskTranscript(ctx, ref)) io.out(`\n===== ${t.name}\n${t.text}`);
        }
      });
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
