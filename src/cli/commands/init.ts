import { relative } from "node:path";
import type { Command } from "commander";
import { initProject } from "../../app/init.js";
import { PROJECT_CONFIG_FILE } from "../../config/load.js";
import type { Io } from "../io.js";

export function registerInit(program: Command, io: Io): void {
  program
    .command("init")
    .description(
      "create fixpoint.kdl (commented defaults, detected gate commands) and .fixpoint/ (excluded from git)",
    )
    .option("--force", "overwrite an existing fixpoint.kdl")
    .action(async (opts: { force?: boolean }) => {
      const r = await initProject(io.cwd, { force: Boolean(opts.force), env: io.env });
      io.out(
        `${r.wroteConfig ? `wrote ${PROJECT_CONFIG_FILE}` : `${PROJECT_CONFIG_FILE} already exists; left unchanged`}` +
          ` (gates: ${r.gates.join(", ") || "none detected"})\n` +
          `created .fixpoint/ (in ${relative(r.root, r.excludeFile) || r.excludeFile})\nnext: fixpoint add "<what to build>" && fixpoint work\n`,
      );
    });
}
