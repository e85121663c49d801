import type { Command } from "commander";
import { copyStore } from "../../app/store-copy.js";
import { describeUrl } from "../../store/postgres/errors.js";
import { type Io, printJson } from "../io.js";

export function registerStore(program: Command, io: Io): void {
  const store = program.command("store").description("move a project's history between stores");
  store
    .command("copy")
    .description(
      "copy every task, run, stage, checkpoint, finding, event, marker, stored artifact and learning from a SQLite store into an empty PostgreSQL database",
    )
    .requiredOption("--from <store>", "the SQLite store, e.g. sqlite:.fixpoint/fixpoint.db")
    .requiredOption("--to <url>", "the PostgreSQL database, postgres://user@host/db")
    .option("--json", "print JSON: the rows copied per table")
    .action(async (opts: { from: string; to: string; json?: boolean }) => {
      const result = await copyStore(opts.from, opts.to, io.cwd);
      if (opts.json) {
        printJson(io, result.counts);
        return;
      }
      const parts = Object.entries(result.counts).map(([table, n]) => `${n} ${table}`);
      io.out(`copied ${result.from} → ${describeUrl(opts.to)}: ${parts.join(", ")}\n`);
      io.out(
        `use it: database "${describeUrl(opts.to)}" in fixpoint.kdl (with your password), or FIXPOINT_DATABASE_URL\n`,
      );
    });
}
