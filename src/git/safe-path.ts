import { lstatSync, realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * Resolves a path named in a review finding to a real path inside `root` (a task's worktree),
 * or null when it would lead anywhere else: `../` traversal, an absolute path outside `root`, or a
 * symlink inside `root` that points out of it. Finding paths come from agent output and PR
 * comments, so they are untrusted.
 *
 * `..` is resolved by name first (as git and people read paths), then every existing part of the
 * result is resolved through the file system, so symlinks are judged by where they really lead.
 * The part that does not exist yet is kept as written. A symlink that exists but leads nowhere
 * resolves to null: where it points cannot be checked. A missing `root` also gives null.
 */
export function resolveInside(root: string, relPath: string): string | null {
  if (relPath.length === 0 || relPath.includes("\0")) return null;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return null;
  }
  const candidate = isAbsolute(relPath) ? resolve(relPath) : resolve(realRoot, relPath);
  const real = realExistingPrefix(candidate);
  if (real === null) return null;
  return isWithin(realRoot, real) ? real : null;
}

/**
 * Whether the finding's path names something that still exists inside `root` (a file or a folder:
 * a finding about a folder should not look obsolete). False for paths that escape `root`; nothing
 * outside `root` is ever stat'ed.
 */
export async function fileExistsInside(root: string, relPath: string): Promise<boolean> {
  const resolved = resolveInside(root, relPath);
  if (resolved === null) return false;
  try {
    await stat(resolved);
    return true;
  } catch {
    // ENOENT, ENOTDIR, EACCES: all mean "not there for the agent to work on".
    return false;
  }
}

function isWithin(root: string, p: string): boolean {
  const rel = relative(root, p);
  // Compare the first segment, not a prefix: `..notes.md` is a fine file name inside root.
  return rel === "" || (rel.split(sep)[0] !== ".." && !isAbsolute(rel));
}

/** Real path of the longest existing prefix of the absolute `p`, with the missing rest appended. */
function realExistingPrefix(p: string): string | null {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    if (lexists(current)) break;
    const parent = dirname(current);
    if (parent === current) return null;
    missing.unshift(basename(current));
    current = parent;
  }
  try {
    return join(realpathSync(current), ...missing);
  } catch {
    // Exists but cannot be resolved: a dangling symlink or a loop.
    return null;
  }
}

/** Existence without following a final symlink, so a dangling link is seen as present. */
function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
