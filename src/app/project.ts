import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type ConfigFlags, loadConfig, PROJECT_CONFIG_FILE } from "../config/load.js";
import type { Config } from "../config/types.js";
import type { Clock } from "../domain/clock.js";
import type { Git } from "../domain/git.js";
import type { Notifier } from "../domain/notifier.js";
import type { Store } from "../domain/store.js";
import { FixpointError } from "../errors.js";
import { createGit } from "../git/git-cli.js";
import { openStore } from "../store/open.js";
import { systemClock } from "../util/clock.js";
import { setRedactedEnvNames } from "../util/redact.js";
import { type AppContext, osUser } from "./context.js";

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

export interface OpenProjectOptions {
  flags?: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  git?: Git;
  /** A store to use instead of the configured one (the caller keeps ownership of it). */
  store?: Store;
  /**
   * Create `.fixpoint/` and the store even in a repository fixpoint was never initialised in
   * (`init` does; read-only commands must not leave a store behind in any directory they run in).
   */
  create?: boolean;
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

/**
 * A repository is initialised for fixpoint when it has a `fixpoint.kdl` or a `.fixpoint/`
 * directory (`fixpoint init` makes both; a repository used before `init` existed has the latter).
 */
export function isInitialised(root: string): boolean {
  return existsSync(join(root, PROJECT_CONFIG_FILE)) || existsSync(join(root, ".fixpoint"));
}

export async function openProject(cwd: string, opts: OpenProjectOptions = {}): Promise<Project> {
  const git = opts.git ?? createGit();
  const root = await findRepoRoot(cwd, git);
  if (!opts.create && !opts.store && !isInitialised(root)) {
    throw new FixpointError(
      "usage",
      `${root} is not a fixpoint project (no ${PROJECT_CONFIG_FILE} or .fixpoint/); run \`fixpoint init\` there first`,
    );
  }
  const config = await loadConfig({ projectRoot: root, flags: opts.flags, env: opts.env, cwd });
  // The project's own secret variables (`defaults { redact-env … }`) are hidden from here on.
  setRedactedEnvNames(config.defaults.redactEnv ?? []);
  const dir = join(root, ".fixpoint");
  // Synchronous: one call, and every command would otherwise load node:fs/promises for it.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const own = opts.store === undefined;
  const store = opts.store ?? (await openStore(config.database.url, root));
  return { root, config, store, git, dir, close: () => (own ? store.close() : Promise.resolve()) };
}

/** A project opened for the use cases: its context plus `close()`. */
export type OpenedProject = AppContext & { project: Project; close(): Promise<void> };

/** Opens the project at `cwd` as a use-case context (real clock, the OS user as actor). */
export async function openContext(
  cwd: string,
  opts: OpenProjectOptions & { clock?: Clock; actor?: string; notifier?: Notifier } = {},
): Promise<OpenedProject> {
  const project = await openProject(cwd, opts);
  return {
    ...contextOf(project, { env: opts.env ?? process.env, clock: opts.clock, actor: opts.actor }),
    ...(opts.notifier ? { notifier: opts.notifier } : {}),
    project,
    close: () => project.close(),
  };
}

/** The use-case context of an open project. */
export function contextOf(
  project: Project,
  opts: { env?: NodeJS.ProcessEnv; clock?: Clock; actor?: string } = {},
): AppContext {
  return {
    store: project.store,
    git: project.git,
    config: project.config,
    clock: opts.clock ?? systemClock,
    root: project.root,
    dir: project.dir,
    env: opts.env ?? process.env,
    actor: opts.actor ?? osUser(),
  };
}
