import type { Command } from "commander";
import { listWorkers, type WorkerView } from "../../app/workers.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { columnWidths, elapsed, pad } from "../render/format.js";

export function registerWorkers(program: Command, io: Io): void {
  program
    .command("workers")
    .description(
      "live workers of this project's store, on every machine: host, pid, tasks held, last heartbeat",
    )
    .option("--json", "print JSON: an array of worker objects")
    .option("--all", "include workers whose heartbeat is stale (crashed or cut off)")
    .action(async (opts: { json?: boolean; all?: boolean }) => {
      const { workers, now } = await withContext(io, async (ctx) => {
        const at = ctx.clock.now();
        return { workers: await listWorkers(ctx.store, at, { all: opts.all === true }), now: at };
      });
      if (opts.json) printJson(io, workers);
      else io.out(workersTable(workers, now));
    });
}

function workersTable(workers: WorkerView[], now: number): string {
  if (workers.length === 0) return "no live workers\n";
  const rows = workers.map((w) => [
    w.id,
    w.host,
    String(w.pid),
    w.tasks.length === 0 ? "-" : w.tasks.join(","),
    `${elapsed(Math.max(0, now - w.heartbeatAt))} ago${w.live ? "" : " (stale)"}`,
  ]);
  const header = ["WORKER", "HOST", "PID", "TASKS", "LAST HEARTBEAT"];
  const widths = columnWidths([header, ...rows], header.length);
  const line = (cells: string[]) =>
    `${cells
      .map((c, i) => pad(c, widths[i] ?? 0))
      .join("  ")
      .trimEnd()}\n`;
  return [header, ...rows].map(line).join("");
}
