import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, realpath, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { FixpointError } from "../errors.js";
import { branchExists } from "./branches.js";
import { checkRev, type GitRunner, gitFailure } from "./exec.js";
import { removeFolder } from "./remove-folder.js";
import {
  addWorktreeByHand,
  discardStaleAdd,
  isOwnLock,
  isStaleOwnLock,
  namedRecord,
  recordNamedFor,
} from "./worktree-add.js";

export interface WorktreeEntry {
  path: string;
  /** Short branch name; null for a detached HEAD or a bare entry. */
  branch: string | null;
  /** Only when locked: the reason (`initializing` while a `git worktree add` is still running). */
  locked?: string;
}

/** Parses `git worktree list --porcelain`: blocks of `key value` lines separated by blank lines. */
export function parseWorktreeList(text: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("worktree ")) {
      current = { path: line.slice("worktree ".length), branch: null };
      entries.push(current);
    } else if (line.startsWith("branch ") && current) {
      const ref = line.slice("branch ".length);
      current.branch = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
    } else if ((line === "locked" || line.startsWith("locked ")) && current) {
      current.locked = line.slice("locked".length).trim();
    }
  }
  return entries;
}

export async function listWorktrees(git: GitRunner, repo: string): Promise<WorktreeEntry[]> {
  const r = await git.run(repo, ["worktree", "list", "--porcelain"]);
  return parseWorktreeList(r.stdout);
}

export interface EnsureWorktreeOptions {
  repo: string;
  path: string;
  branch: string;
  base: string;
  /** False: a new branch's worktree by `git worktree add -b` even in a plain layout (worktree-add.ts). */
  byHand?: boolean;
}

/**
 * Reuse, recreate or create the task's worktree (SPEC §11). A new branch's worktree is added as
 * `git worktree add -b` adds it, step by step without reading every other worktree
 * (worktree-add.ts), or by git when the layout is not a plain one; anything else by `git worktree`
 * commands. None of them touches the main checkout's working tree or index, dirty or not.
 *
 * A worker SIGKILLed during its `git worktree add` leaves that git running on its own; the worker
 * that takes the task over at once can meet it half done (the branch made, the checkout still
 * going). Such a collision is waited out and the decision made again, so the new worker reuses the
 * finished worktree instead of failing the task — and never reuses one still being checked out.
 * A folder that is there but is no worktree is waited on too: a `worktree add` that failed (a full
 * disk) removes its worktree's registration first and its files after, and a worker that looks in
 * between would otherwise fail the task over a folder about to vanish. And another worker's
 * `worktree prune` can remove this add's registration while git is still writing it (git makes
 * the folder under `.git/worktrees/` first and writes its `locked` file into it after): the add then
 * fails on a file it cannot open, having made the branch, and is made again. (The prune also
 * removes `.git/worktrees` itself when it is empty, which another add may be about to fill.)
 */
export async function ensureWorktree(
  git: GitRunner,
  opts: EnsureWorktreeOptions,
): Promise<{ path: string; created: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ensureWorktreeOnce(git, opts);
    } catch (e) {
      if (attempt >= COLLISION_RETRIES || !(e instanceof FixpointError) || !COLLISION.test(e.message))
        throw e;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/**
 * What another git process still adding (or removing) the same worktree or branch makes
 * `worktree add` say, or leaves for us to find.
 */
const COLLISION =
  /already exists|already registered|already checked out|already used by worktree|being created by another git|exists but is not a worktree|could not (?:open|create)[^'\n]*'[^'\n]*[/\\]worktrees[/\\][^\n]*No such file or directory/;
/** 50 ms, 100 ms, …: about 5 s in all. */
const COLLISION_RETRIES = 15;

async function ensureWorktreeOnce(
  git: GitRunner,
  opts: EnsureWorktreeOptions,
): Promise<{ path: string; created: boolean }> {
  const path = resolve(opts.path);
  const { repo, branch } = opts;
  checkRev(branch, "branch name");
  checkRev(opts.base, "base revision");

  if (existsSync(path)) {
    // Its own record first: git's listing reads every worktree of the repository.
    const record = await worktreeRecord(repo, path);
    let match = record ?? (await findWorktree(git, repo, path));
    if (match?.locked !== undefined && isStaleOwnLock(match.locked)) {
      // Our add by hand, in a worker killed half way: nobody has worked in it.
      await discardStaleAdd(record?.dir ?? recordNamedFor(repo, path), path);
      match = undefined;
    }
    if (match) {
      if (match.locked === "initializing" || (match.locked !== undefined && isOwnLock(match.locked)))
        throw new FixpointError("git", `worktree ${path} is being created by another git process`);
      if (match.branch === branch) return { path, created: false };
      throw new FixpointError(
        "git",
        `worktree ${path} is on ${match.branch ? `branch ${match.branch}` : "a detached HEAD"}, expected ${branch}`,
      );
    }
    // An empty folder is what an interrupted `worktree add` leaves behind; git accepts it.
    if (existsSync(path) && !(await isEmptyDir(path))) {
      throw new FixpointError(
        "git",
        `${path} exists but is not a worktree of ${repo}; move it away or delete it, then retry`,
      );
    }
  }

  await mkdir(dirname(path), { recursive: true });
  if (await branchExists(git, repo, branch)) {
    // A record our add by hand left without its folder's `.git`, in a worker killed half way.
    await discardStaleAdd(recordNamedFor(repo, path), path);
    // The folder was deleted by hand: git still records the old worktree and would refuse the branch.
    await git.run(repo, ["worktree", "prune"]);
    await git.run(repo, ["worktree", "add", path, branch]);
    return { path, created: true };
  }
  const byHand =
    opts.byHand === false
      ? "not-plain"
      : await addWorktreeByHand(git, { repo, path, branch, base: opts.base });
  if (byHand === "not-plain") await git.run(repo, ["worktree", "add", "-b", branch, path, opts.base]);
  else if (byHand === "branch-made") await git.run(repo, ["worktree", "add", path, branch]);
  return { path, created: true };
}

/**
 * Removes a worktree. Refuses when it has uncommitted changes or untracked files ("dirty"), as `git
 * worktree remove` does: callers commit first, and work is never thrown away silently. A folder
 * already gone is just pruned.
 *
 * A worktree whose record names it back (worktreeRecord), neither locked nor with submodules, is
 * removed as git removes it, its folder and then git's record of it, after the same check (`git
 * status`), without `git worktree remove`: git reads every worktree of the repository to remove
 * one, 0.12 ms each, so with 10,000 kept a removal took 1.2 s and `clean` of them all hours.
 * Anything else (locked, with submodules, moved, a layout this does not know) is git's to remove
 * or to refuse.
 */
export async function removeWorktree(
  git: GitRunner,
  repo: string,
  path: string,
): Promise<"removed" | "dirty"> {
  const abs = resolve(path);
  if (!existsSync(abs)) {
    await git.run(repo, ["worktree", "prune"]);
    return "removed";
  }
  const record = await worktreeRecord(repo, abs);
  if (record === null || record.locked !== undefined || record.submodules) return removeByGit(git, repo, abs);
  const status = await git.run(abs, ["status", "--porcelain", "--ignore-submodules=none"]);
  if (status.stdout.trim() !== "") return "dirty";
  // A lock taken while the status ran is still honoured.
  if (existsSync(join(record.dir, "locked"))) return removeByGit(git, repo, abs);
  await removeFolder(abs);
  await rm(record.dir, { recursive: true, force: true });
  return "removed";
}

/** `git worktree remove`, its refusal of a worktree with changes as "dirty". */
async function removeByGit(git: GitRunner, repo: string, abs: string): Promise<"removed" | "dirty"> {
  const r = await git.run(repo, ["worktree", "remove", abs], { okCodes: [128] });
  if (r.code === 0) return "removed";
  if (/contains modified or untracked files/.test(r.stderr)) return "dirty";
  throw gitFailure("worktree", r.stderr, `exit code ${r.code}`);
}

/** Git's record of a linked worktree, read from its files (worktreeRecord). */
interface WorktreeRecord extends WorktreeEntry {
  /** The record's folder, under the repository's `.git/worktrees/`. */
  dir: string;
  /** Submodules in it (`.gitmodules`, or modules of its own): git's care, not ours. */
  submodules: boolean;
}

/**
 * The record under the repository's `.git/worktrees/` of the worktree at `abs`, read as `git
 * worktree list` reads it (its HEAD's branch, its lock's reason), when the two name each other
 * (`abs/.git` says `gitdir: <record>`, `<record>/gitdir` says `abs/.git`): one worktree's files,
 * where git's listing reads every worktree of the repository. Null for anything else (a
 * repository whose `.git` is not a folder, a moved worktree, a record being written), which
 * git's own listing answers.
 */
async function worktreeRecord(repo: string, abs: string): Promise<WorktreeRecord | null> {
  try {
    const dotGit = join(abs, ".git");
    // Null for a `.git` folder too: it cannot be read as a file.
    const dir = await namedRecord(abs);
    if (dir === null) return null;
    if ((await realpath(dirname(dir))) !== (await realpath(join(repo, ".git", "worktrees")))) return null;
    const back = (await readFile(join(dir, "gitdir"), "utf8")).trim();
    if ((await realpath(resolve(dir, back))) !== (await realpath(dotGit))) return null;
    const head = (await readFile(join(dir, "HEAD"), "utf8")).trim();
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (ref === undefined && !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return null;
    const locked = await readFile(join(dir, "locked"), "utf8").then(
      (text) => text.trim(),
      () => undefined,
    );
    const record: WorktreeRecord = {
      path: abs,
      branch:
        ref === undefined ? null : ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref,
      dir,
      submodules: existsSync(join(dir, "modules")) || existsSync(join(abs, ".gitmodules")),
    };
    if (locked !== undefined) record.locked = locked;
    return record;
  } catch {
    return null;
  }
}

async function findWorktree(git: GitRunner, repo: string, path: string): Promise<WorktreeEntry | undefined> {
  const wanted = await realpathOr(path);
  for (const entry of await listWorktrees(git, repo)) {
    if ((await realpathOr(entry.path)) === wanted) return entry;
  }
  return undefined;
}

/** Worktree paths recorded by git may go through symlinks (macOS /tmp); compare real paths. */
async function realpathOr(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    // A recorded worktree whose folder is gone cannot match an existing path; keep it as written.
    return resolve(p);
  }
}

async function isEmptyDir(p: string): Promise<boolean> {
  try {
    return (await readdir(p)).length === 0;
  } catch {
    // Not a directory (or unreadable): certainly not something to build a worktree in.
    return false;
  }
}
