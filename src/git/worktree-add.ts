import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { pidAlive } from "../util/process-group.js";
import type { GitRunner } from "./exec.js";
import { removeFolder } from "./remove-folder.js";

/**
 * A worktree for a new branch added as `git worktree add -b <branch> <path> <base>` lays it out,
 * without `git worktree add`: git reads every worktree of the repository to add one (their
 * records, their HEADs), so with 2,000 worktrees kept an add took 420 ms and with 10,000 1.3 s,
 * against 50 ms with none (docs/benchmarks.md). The steps are git's own:
 *
 * 1. `git branch <branch> <base>`, the command `worktree add -b` runs for its branch;
 * 2. the record `.git/worktrees/<name>`, locked while it is made (`git worktree prune` leaves a
 *    locked record alone), each file written whole under a name of its own and renamed (other
 *    gits read every record, and die on an empty file), `gitdir` last (until then they skip it);
 * 3. the folder and its `.git` naming the record;
 * 4. `git reset --hard` in it, the checkout `worktree add` runs;
 * 5. the lock removed.
 *
 * Only for a plain layout: a repository whose `.git` is a folder, without sparse checkout or
 * per-worktree config (which git copies into a new worktree), and a folder name git keeps as the
 * record's name (it changes other names, and numbers one already taken). Anything else is git's.
 * Hooks do not matter: fixpoint runs every git command with hooks off (exec.ts).
 *
 * The lock names the process (ownLock). A worker killed half way leaves it: the worker that takes
 * the task over finds the lock of a process gone from this host (isStaleOwnLock), and since no
 * agent has worked in a worktree that was never finished, removes what is there and adds it again.
 */
export type AddByHand =
  /** Added, checked out, unlocked. */
  | "added"
  /** Not a plain layout: nothing done, `git worktree add -b` is to add it. */
  | "not-plain"
  /** The branch was made but the rest failed and was undone: `git worktree add` is to add it. */
  | "branch-made";

/** What a record's lock says while process `pid` of this host makes it. */
export function ownLock(pid = process.pid): string {
  return `initializing (fixpoint pid ${pid} on ${hostname()})`;
}

const OWN_LOCK = /^initializing \(fixpoint pid (\d+) on (.+)\)$/;

/** A lock written by ownLock (in any process): the worktree is being added, or never finished. */
export function isOwnLock(reason: string): boolean {
  return OWN_LOCK.test(reason);
}

/** A lock written by ownLock in a process of this host that is gone: its add will never finish. */
export function isStaleOwnLock(reason: string): boolean {
  const m = OWN_LOCK.exec(reason);
  return m !== null && m[2] === hostname() && !pidAlive(Number(m[1]));
}

/** A folder name git uses unchanged as its record's name. */
function plainName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) && !name.includes("..") && !name.endsWith(".lock");
}

/** The repository's `.git` folder when a worktree of it can be added by hand, else null. */
async function plainCommonDir(repo: string, path: string): Promise<string | null> {
  const common = join(repo, ".git");
  try {
    if (!(await lstat(common)).isDirectory()) return null;
  } catch {
    return null;
  }
  if (!plainName(basename(path))) return null;
  if (existsSync(join(common, "info", "sparse-checkout")) || existsSync(join(common, "config.worktree")))
    return null;
  return realpath(common);
}

/** Writes `text` to `file` so that no reader sees it half written. */
async function writeWhole(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/**
 * Adds the worktree at `path` (absolute; its parent made, itself absent or empty) on a new branch
 * `branch` from `base`, as described above. Throws git's error when the branch cannot be made
 * (it exists, the base does not).
 */
export async function addWorktreeByHand(
  git: GitRunner,
  opts: { repo: string; path: string; branch: string; base: string },
): Promise<AddByHand> {
  const { repo, path, branch } = opts;
  const common = await plainCommonDir(repo, path);
  if (common === null) return "not-plain";
  const record = join(common, "worktrees", basename(path));
  // A record of that name already (another folder's): git numbers a name of its own.
  if (existsSync(record)) return "not-plain";
  await git.run(repo, ["branch", branch, opts.base]);
  const lock = ownLock();
  let made = false;
  let folder = false;
  try {
    await mkdir(dirname(record), { recursive: true });
    await mkdir(record);
    made = true;
    await writeWhole(join(record, "locked"), lock);
    const dotGit = join(await realpath(dirname(path)), basename(path), ".git");
    await writeWhole(join(record, "commondir"), "../..\n");
    await writeWhole(join(record, "HEAD"), `ref: refs/heads/${branch}\n`);
    await writeWhole(join(record, "gitdir"), `${dotGit}\n`);
    await mkdir(path, { recursive: true });
    folder = true;
    // No git reads it before the record names it; a temporary name would be left in the folder.
    await writeFile(dotGit, `gitdir: ${record}\n`);
    await git.run(path, ["reset", "--quiet", "--hard", "--no-recurse-submodules"]);
    await rm(join(record, "locked"));
    return "added";
  } catch {
    // Undone, so git adds it from the branch and says what stops it, if anything does.
    // Made by this call (mkdir fails on one that exists), whatever it holds by now.
    // The folder first, whole (removeFolder): a record left by a kill in between is still ours,
    // locked, and discarded by the next add; a folder left without its record would be nobody's.
    if (folder) await removeFolder(path);
    if (made) await rm(record, { recursive: true, force: true });
    return "branch-made";
  }
}

/** The record a worktree folder's `.git` file names (`gitdir: …`, from the folder), or null. */
export async function namedRecord(folder: string): Promise<string | null> {
  const text = await readFile(join(folder, ".git"), "utf8").catch(() => null);
  const named = text === null ? undefined : /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  return named ? resolve(folder, named) : null;
}

/** Where the record of the worktree at `path` is when it is named after the folder, as ours are. */
export function recordNamedFor(repo: string, path: string): string {
  return join(repo, ".git", "worktrees", basename(path));
}

/**
 * Removes what a dead process's add by hand left at `record` (when its lock is stale, see
 * isStaleOwnLock): the record, and the folder at `path` when its `.git` names that record, is all
 * it holds (written in part), or is gone from a folder the record names (the remains of a removal
 * killed part way, before removeFolder). No agent has worked in such a folder: it was never
 * finished. An empty folder stays: git adds a worktree into one. Anything else is left as it is.
 */
export async function discardStaleAdd(record: string, path: string): Promise<void> {
  const reason = await readFile(join(record, "locked"), "utf8").catch(() => null);
  if (reason === null || !isStaleOwnLock(reason.trim())) return;
  const names = await readdir(path).catch(() => null);
  if (names !== null && names.length > 0) {
    const named = await namedRecord(path);
    const ours = names.includes(".git")
      ? names.length === 1 || (named !== null && (await samePlace(named, record)))
      : await namesFolder(record, path);
    if (ours) await removeFolder(path);
  }
  await rm(record, { recursive: true, force: true });
}

/** Whether the record's `gitdir` names `path/.git`, as an add by hand writes it. */
async function namesFolder(record: string, path: string): Promise<boolean> {
  const gitdir = await readFile(join(record, "gitdir"), "utf8").catch(() => null);
  if (gitdir === null) return false;
  try {
    return resolve(record, gitdir.trim()) === join(await realpath(path), ".git");
  } catch {
    return false;
  }
}

async function samePlace(a: string, b: string): Promise<boolean> {
  try {
    return (await realpath(a)) === (await realpath(b));
  } catch {
    return false;
  }
}
