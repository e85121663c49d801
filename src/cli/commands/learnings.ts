import type { Command } from "commander";
import { addLearning, listLearnings, removeLearning } from "../../app/learnings.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { learningJson, learningsTable } from "../render/learnings.js";

/**
 * `fixpoint learnings [--json]`, `learnings add "…" [--path GLOB]`, `learnings rm <id>`: the
 * repository's learnings (issue 16), which reviewers are told and which dismiss a repeated finding.
 */
export function registerLearnings(program: Command, io: Io): void {
  const learnings = program
    .command("learnings")
    .description("what reviewers are told about this repository, and what dismisses a repeated finding")
    .option("--json", "print JSON: an array of learnings (docs/cli.md)")
    .option("--removed", "include removed learnings")
    .action(async (opts: { json?: boolean; removed?: boolean }) => {
      const list = await withContext(io, (ctx) => listLearnings(ctx, { removed: opts.removed === true }));
      if (opts.json) printJson(io, list.map(learningJson));
      else io.out(learningsTable(list));
    });

  learnings
    .command("add")
    .description("record a learning of your own: reviewers of matching changes are told it")
    .argument("<text>", 'the statement, e.g. "inputs are validated at the boundary"')
    .option(
      "--path <glob>",
      "only for changes touching files this glob matches (src/api/**); default: the whole repository",
    )
    .option("--json", "print the new learning as JSON")
    .action(async (text: string, opts: { path?: string }, cmd: Command) => {
      const l = await withContext(io, (ctx) =>
        addLearning(ctx, { text, ...(opts.path !== undefined ? { path: opts.path } : {}) }),
      );
      // `--json` after the subcommand is read by the parent `learnings` first: look at both.
      if (cmd.optsWithGlobals().json === true) printJson(io, learningJson(l));
      else io.out(`${l.id} recorded (${l.scope ?? "whole repository"})\n`);
    });

  learnings
    .command("rm")
    .description("remove a learning: reviewers are no longer told it and it dismisses nothing more")
    .argument("<id>", "learning id (L-3)")
    .action(async (id: string) => {
      const l = await withContext(io, (ctx) => removeLearning(ctx, { id }));
      io.out(`${l.id} removed\n`);
    });
}
