import { access, appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { detectGates, renderInitConfig } from "../../config/init.js";
import { PROJECT_CONFIG_FILE } from "../../config/load.js";
import type { Io } from "../io.js";
import { findRepoRoot, openProject } from "../project.js";

export function registerInit(program: Command, io: Io): void {
  program
    .command("init")
    .description(
      "create fixpoint.kdl (commented defaults, detected gate commands) and .fixpoint/ (gitignored)",
    )
    .option("--force", "overwrite an existing fixpoint.kdl")
    .action(async (opts: { force?: boolean }) => {
      const root = await findRepoRoot(io.cwd);
      const configPath = join(root, PROJECT_CONFIG_FILE);
      const exists = await access(configPath).then(
        () => true,
        () => false,
      );
      const gates = await detectGates(root);
      if (!exists || opts.force) await writeFile(configPath, renderInitConfig(gates));
      await ignoreFixpointDir(root);
      const project = await openProject(root, { env: io.env });
      await project.close();
      io.out(
        `${exists && !opts.force ? `${PROJECT_CONFIG_FILE} already exists; left unchanged` : `wrote ${PROJECT_CONFIG_FILE}`}` +
          ` (gates: ${gates.map((g) => g.name).join(", ") || "none detected"})\n` +
          `created .fixpoint/ (in .gitignore)\nnext: fixpoint add "<what to build>" && fixpoint work\n`,
      );
    });
}

async function ignoreFixpointDir(root: string): Promise<void> {
  const path = join(root, ".gitignore");
  const text = await readFile(path, "utf8").catch(() => "");
  if (text.split("\n").some((l) => l.trim() === ".fixpoint/" || l.trim() === ".fixpoint")) return;
  await appendFile(path, `${text && !text.endsWith("\n") ? "\n" : ""}.fixpoint/\n`);
}
