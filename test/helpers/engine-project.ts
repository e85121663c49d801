import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/types.js";
import type { Store } from "../../src/domain/store.js";
import { createTempRepo, type TempRepo } from "../../src/git/temp-repo.js";
import { openStore } from "../../src/store/open.js";

/** Golden workflows, one per engine behaviour; installed into the project's `.fixpoint/workflows/`. */
export const GOLDEN_WORKFLOWS_DIR = fileURLToPath(new URL("../engine/workflows/", import.meta.url));

export interface ProjectSettings {
  /** Agent names to configure (the scripted handlers are wired in by the harness). */
  agents: string[];
  /** Per-agent timeout as fixpoint.kdl spells it (`"300ms"`); default `"30s"`. */
  timeouts?: Record<string, string>;
  workflow?: string;
  maxCycles?: number;
  blockingSeverity?: string;
  followups?: boolean;
  budgetUsd?: number;
  /** Gate name → shell string, run in the task's worktree. */
  gates?: Record<string, string>;
  /** File names in test/engine/workflows to install. */
  goldenWorkflows?: string[];
}

export interface TempProject {
  repo: TempRepo;
  root: string;
  /** The isolated environment: HOME and FIXPOINT_HOME inside the temp folder. */
  env: NodeJS.ProcessEnv;
  config: Config;
  store: Store;
}

/** fixpoint.kdl for a test project, written the way a user would write it. */
export function projectKdl(s: ProjectSettings): string {
  const lines: string[] = [];
  for (const name of s.agents) {
    // The harness resolves agents to in-process scripted handlers; the script path is never loaded.
    const timeout = s.timeouts?.[name] ?? "30s";
    lines.push(`agent "${name}" backend="scripted" script="./in-process.mjs" timeout="${timeout}"`);
  }
  lines.push("", "defaults {");
  lines.push(`    workflow "${s.workflow ?? "implement-review"}"`);
  lines.push(`    max-cycles ${s.maxCycles ?? 3}`);
  lines.push(`    blocking-severity "${s.blockingSeverity ?? "P1"}"`);
  lines.push(`    followups ${s.followups ? "#true" : "#false"}`);
  if (s.budgetUsd !== undefined) lines.push(`    budget usd=${s.budgetUsd}`);
  lines.push("}", "");
  for (const [name, run] of Object.entries(s.gates ?? {})) {
    lines.push(`gate "${name}" run=#"${run}"# timeout="30s"`);
  }
  lines.push(`database "sqlite"`, "");
  return lines.join("\n");
}

/**
 * A real project: a git repository on `main` with a small program, `fixpoint.kdl` and a
 * `.gitignore` for `.fixpoint/` committed (as `fixpoint init` leaves it), the configuration loaded
 * through the real loader with an isolated environment, and the real SQLite store file.
 */
export async function createTempProject(s: ProjectSettings): Promise<TempProject> {
  const repo = createTempRepo();
  const root = repo.repo;
  repo.commit(
    {
      "src/app.js": 'export function greet(name) {\n  return "hello " + name;\n}\n',
      "test/app.test.js": `import { greet } from "../src/app.js";\nif (greet("a") !== "hello a") process.exit(1);\n`,
      ".gitignore": ".fixpoint/\n",
      "fixpoint.kdl": projectKdl(s),
    },
    "A small program",
  );
  for (const file of s.goldenWorkflows ?? []) {
    const dir = join(root, ".fixpoint", "workflows");
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(GOLDEN_WORKFLOWS_DIR, file), join(dir, file));
  }
  const home = join(repo.dir, "home");
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    FIXPOINT_HOME: join(home, ".fixpoint"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
  };
  const config = await loadConfig({ projectRoot: root, env, cwd: root });
  const store = await openStore(config.database.url, root);
  return { repo, root, env, config, store };
}
