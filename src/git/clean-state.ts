import { compareFingerprints, indexStamp, readHead, worktreeFingerprint } from "./fs-state.js";

/** A worktree as we left it after our last commit there: HEAD, the index, every file's stat. */
export interface WorktreeState {
  head: string | null;
  index: string | null;
  files: Map<string, string> | null;
}

/**
 * - `unchanged`: same HEAD, index and files as right after our last commit: nothing to commit.
 * - `only-existing-files`: same HEAD and index, some files that were there changed or went away
 *   (so every one of them is tracked or ignored): `commit -a` takes them all.
 * - `unknown`: no earlier state, a new file, a moved HEAD or a staged change: ask git fully.
 */
export type Comparison = "unchanged" | "only-existing-files" | "unknown";

/**
 * Per worktree folder, the state right after fixpoint's last `commitAll` there, when the folder is
 * small enough to fingerprint (fs-state WALK_LIMIT). Every file in such a state is tracked or
 * ignored, because the commit before it staged everything (`add -A`) or only changed files that
 * were already in an earlier such state.
 */
export class CleanStates {
  private readonly states = new Map<string, WorktreeState>();

  /** `head`: HEAD's sha when the caller has just read it. */
  observe(cwd: string, head?: string): WorktreeState {
    return { head: head ?? readHead(cwd), index: indexStamp(cwd), files: worktreeFingerprint(cwd) };
  }

  compare(cwd: string, now: WorktreeState): Comparison {
    const was = this.states.get(cwd);
    if (!was?.files || !now.files || was.head === null || now.head !== was.head) return "unknown";
    if (now.index === null || now.index !== was.index) return "unknown";
    const d = compareFingerprints(was.files, now.files, cwd);
    if (!d.changed) return "unchanged";
    return d.added ? "unknown" : "only-existing-files";
  }

  remember(cwd: string, state: WorktreeState): void {
    if (state.files === null || state.head === null) this.states.delete(cwd);
    else this.states.set(cwd, state);
  }
}
