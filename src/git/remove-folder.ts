import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pidAlive } from "../util/process-group.js";

/** Where a removed folder waits to be deleted: beside it, so the rename stays on its filesystem. */
const TRASH = ".removed";

/**
 * Removes the folder at `path` (a worktree's) so that nobody sees it half removed: it is renamed
 * into `.removed/` beside it first, in one step, and deleted there. Deleting in place, a worker
 * killed part way left a folder holding some of the checkout and no `.git`, which git no longer
 * counts as a worktree and which ensureWorktree must refuse as somebody else's, failing the task
 * for good (the chaos suite met it). A git process still writing in the folder (left running by a
 * worker that was killed) follows it to its new name. What a killed remover left in `.removed/`
 * is deleted by the next removal beside it, unless the process that renamed it still runs.
 * Nothing to do when the folder is gone.
 */
export async function removeFolder(path: string): Promise<void> {
  const trash = join(dirname(path), TRASH);
  await sweep(trash);
  const moved = join(trash, `${basename(path)}.${process.pid}.${Date.now()}`);
  try {
    await mkdir(trash, { recursive: true });
    await rename(path, moved);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    // A folder that cannot be renamed (a mount point, another filesystem): deleted where it is.
    if (code === "EXDEV" || code === "EBUSY" || code === "EPERM" || code === "EACCES") {
      await rm(path, { recursive: true, force: true });
      return;
    }
    throw e;
  }
  // A git left running may still be writing in it: what it adds meanwhile is swept later.
  await rm(moved, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}

/** Deletes what removals by processes no longer running left in `trash`. */
async function sweep(trash: string): Promise<void> {
  const names = await readdir(trash).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/\.(\d+)\.\d+$/.exec(name)?.[1]);
    if (Number.isSafeInteger(pid) && pidAlive(pid)) continue;
    await rm(join(trash, name), { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}
