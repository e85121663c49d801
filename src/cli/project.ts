import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type ConfigFlags, loadConfig } from "../config/load.js";
import type { Config } from "../config/types.js";
import type { Git } from "../domain/git.js";
import type { Store } from "../domain/store.js";
import { FixpointError } from "../errors.js";
import { createGit } from "../git/git-cli.js";
import { openStore } from "../store/open.js";
import { setRedactedEnvNames } from "../util/redact.js";

/** A repository fixpoint works in: its root, its configuration and its store. */
export interface Project {
  root: string;
  config: Config;
  store: Store;
  git: Git;
  /** `<root>/.fixpoint`, owner-only. */
  dir: string;
  close(): Promise<void>;
}

export async function findRepoRoot(cwd: string, git: Git = createGit()): Promise<string> {
  const root = await git.repoRoot(cwd);
  if (!root) {
    throw new FixpointError(
      "usage",
      `${cwd} is not inside a git repository; run fixpoint from your project's checkout (or \`git init\` first)`,
    );
  }
  return root;
}

export async function openProject(
  cwd: string,
  opts: { flags?: ConfigFlags; env?: NodeJS.ProcessEnv } = {},
): Promise<Project> {
  const git = createGit();
  const root = await findRepoRoot(cwd, git);
  const config = await loadConfig({ projectRoot: root, flags: opts.flags, env: opts.env, cwd });
  setRedactedEnvNames(config.defaults.redactEnv ?? []);
  const dir = join(root, ".fixpoint");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const store = await openStore(config.database.url, root);
  return { root, config, store, git, dir, close: () => store.close() };
}
