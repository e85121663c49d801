import { access, appendFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { detectGates, renderInitConfig } from "../config/init.js";
import { PROJECT_CONFIG_FILE } from "../config/load.js";
import { findRepoRoot, openProject } from "./project.js";

export interface InitResult {
  root: string;
  /** False when fixpoint.kdl existed and `force` was not given. */
  wroteConfig: boolean;
  gates: string[];
  /** The file that keeps `.fixpoint/` out of every commit (the repository's info/exclude). */
  excludeFile: string;
}

/**
 * Makes a repository a fixpoint project: `fixpoint.kdl` with commented defaults and detected
 * gates, `.fixpoint/` with its store, and `.fixpoint/` in `.git/info/exclude`. The exclude file
 * is shared by every worktree of the repository and needs no commit, so the store can never be
 * committed into a task branch (an uncommitted `.gitignore` entry is not seen by task worktrees).
 */
export async function initProject(
  cwd: string,
  opts: { force?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<InitResult> {
  const root = await findRepoRoot(cwd);
  const configPath = join(root, PROJECT_CONFIG_FILE);
  const exists = await access(configPath).then(
    () => true,
    () => false,
  );
  const gates = await detectGates(root);
  const wroteConfig = !exists || Boolean(opts.force);
  if (wroteConfig) await writeFile(configPath, renderInitConfig(gates));
  const excludeFile = await excludeFixpointDir(root);
  const project = await openProject(root, { ...(opts.env ? { env: opts.env } : {}), create: true });
  await project.close();
  return { root, wroteConfig, gates: gates.map((g) => g.name), excludeFile };
}

/** Adds `.fixpoint/` to the repository's info/exclude (once); returns that file's path. */
export async function excludeFixpointDir(root: string): Promise<string> {
  const file = await excludeFileOf(root);
  await addLine(file, ".fixpoint/");
  return file;
}

/**
 * `<common git dir>/info/exclude` for the checkout at `root`: `.git` is a directory in a main
 * checkout, a `gitdir: …` file in a linked worktree or submodule (whose `commondir` names the
 * shared directory).
 */
export async function excludeFileOf(root: string): Promise<string> {
  const dotGit = join(root, ".git");
  let gitDir = dotGit;
  if (!(await stat(dotGit)).isDirectory()) {
    const line = (await readFile(dotGit, "utf8")).trim();
    const target = line.startsWith("gitdir:") ? line.slice("gitdir:".length).trim() : line;
    gitDir = isAbsolute(target) ? target : resolve(root, target);
    const common = await readFile(join(gitDir, "commondir"), "utf8").then(
      (t) => t.trim(),
      () => null,
    );
    if (common) gitDir = isAbsolute(common) ? common : resolve(gitDir, common);
  }
  return join(gitDir, "info", "exclude");
}

async function addLine(path: string, entry: string): Promise<void> {
  const text = await readFile(path, "utf8").catch(() => "");
  const bare = entry.replace(/\/$/, "");
  if (text.split("\n").some((l) => l.trim() === entry || l.trim() === bare)) return;
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${text && !text.endsWith("\n") ? "\n" : ""}${entry}\n`);
}
