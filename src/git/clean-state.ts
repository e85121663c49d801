import { compareFingerprints, excludeStamp, indexStamp, readHead, worktreeFingerprint } from "./fs-state.js";

/** A worktree as we left it after our last commit there: HEAD, the index, every file's stat. */
export interface WorktreeState {
  head: string | null;
  index: string | null;
  /** The stamp of the repository's own ignore rules (`info/exclude`). */
  rules: string | null;
  files: Map<string, string> | null;
  /** The walk gave up at WALK_LIMIT entries (`files` is null). */
  tooBig: boolean;
}

/**
 * - `unchanged`: same HEAD, index and files as right after our last commit: nothing to commit.
 * - `only-existing-files`: same HEAD and index, some files that were there changed or went away
 *   (so every one of them is tracked or ignored): `commit -a` takes them all.
 * - `unknown`: no earlier state, a new file, a moved HEAD, a staged change or changed ignore rules:
 *   ask git fully.
 */
export type Comparison = "unchanged" | "only-existing-files" | "unknown";

/** Observations of a worktree too large to walk that skip the walk before it is tried again. */
const UNWALKED_OBSERVATIONS = 63;

/**
 * Per worktree folder, the state fixpoint's last `commitAll` there left: right after its commit, or
 * the look that found nothing to commit (its files null when the folder is too large to
 * fingerprint, fs-state WALK_LIMIT). Every file in such a state is tracked or ignored, because the
 * commit before it staged everything (`add -A`) or only changed files that were already in an
 * earlier such state.
 *
 * What git ignores and does not track (`node_modules`, build output) is left out of the walk once
 * git has listed it (`ignored`): a project with a large ignored folder still has a stage that
 * changed nothing cost no git process. The list is asked for again when it may be wrong (ignore
 * rules changed, a commit or a staged change may have tracked an ignored file: before it is
 * trusted again), when new paths turned out to be ignored (nothing to commit), and when the walk
 * gives up after new paths came.
 */
export class CleanStates {
  private readonly states = new Map<string, WorktreeState>();
  /**
   * Per worktree, what git ignores and does not track. `valid`: nothing tracked or un-ignored
   * since it was listed (else it must be listed again before it is trusted); `complete`: no new
   * path came since (else it may miss some, which only costs a longer walk).
   */
  private readonly ignored = new Map<
    string,
    { paths: ReadonlySet<string>; valid: boolean; complete: boolean }
  >();

  /**
   * Per worktree that holds more than a walk takes, even without what git ignores: how many more
   * observations skip the walk (it costs more there than the `git status` that answers instead:
   * 30-50 ms against 10 ms at 5,000 files on the benchmark machine). Walked again now and then,
   * in case the worktree shrank.
   */
  private readonly unwalked = new Map<string, number>();

  /** `head`: HEAD's sha when the caller has just read it. */
  observe(cwd: string, head?: string): WorktreeState {
    const stamps = { head: head ?? readHead(cwd), index: indexStamp(cwd), rules: excludeStamp(cwd) };
    const skipped = this.unwalked.get(cwd) ?? 0;
    if (skipped > 0) {
      this.unwalked.set(cwd, skipped - 1);
      return { ...stamps, files: null, tooBig: true };
    }
    const known = this.ignored.get(cwd);
    const walk = worktreeFingerprint(cwd, { skip: known?.paths });
    const tooBig = walk.files === null && walk.tooBig;
    if (tooBig && known?.valid && known.complete) this.unwalked.set(cwd, UNWALKED_OBSERVATIONS);
    return { ...stamps, files: walk.files, tooBig };
  }

  /** Whether git should be asked what it ignores here before `now` is compared (the walk gave up). */
  wantsIgnored(cwd: string, now: WorktreeState): boolean {
    const known = this.ignored.get(cwd);
    return now.tooBig && !(known?.valid && known.complete);
  }

  /** What git ignores and does not track here, as `git ls-files --others --ignored --directory` lists it. */
  setIgnored(cwd: string, paths: ReadonlySet<string>): void {
    this.ignored.set(cwd, { paths, valid: true, complete: true });
  }

  /** Whether the ignored list must be asked for again before it is trusted (see `compare`). */
  ignoredInvalid(cwd: string): boolean {
    return this.ignored.get(cwd)?.valid === false;
  }

  /** New paths came: the ignored list may miss some of them. */
  ignoredIncomplete(cwd: string): void {
    const known = this.ignored.get(cwd);
    if (known) this.ignored.set(cwd, { ...known, complete: false });
  }

  /** An empty list hides nothing, so it cannot be wrong in that way. */
  private invalidateIgnored(cwd: string): void {
    const known = this.ignored.get(cwd);
    if (known && known.paths.size > 0) this.ignored.set(cwd, { ...known, valid: false });
  }

  compare(cwd: string, now: WorktreeState): { kind: Comparison; added: boolean } {
    const was = this.states.get(cwd);
    const unknown = { kind: "unknown" as const, added: false };
    if (!was) return unknown;
    // A commit or a staged change may have made an ignored file tracked (`add -f`), other rules
    // may ignore other files: the ignored list is asked for again before it is trusted.
    const moved = was.head === null || now.head !== was.head || now.index === null || now.index !== was.index;
    if (moved || now.rules === null || now.rules !== was.rules) {
      this.invalidateIgnored(cwd);
      return unknown;
    }
    if (!was.files || !now.files) return unknown;
    const d = compareFingerprints(was.files, now.files, cwd);
    if (d.rules) {
      this.invalidateIgnored(cwd);
      return unknown;
    }
    if (!d.changed) return { kind: "unchanged", added: false };
    return d.added ? { kind: "unknown", added: true } : { kind: "only-existing-files", added: false };
  }

  /** `state` without what the ignored list now leaves out of a walk (for a state read before it). */
  withoutIgnored(cwd: string, state: WorktreeState): WorktreeState {
    const skip = this.ignored.get(cwd)?.paths;
    if (!state.files || !skip || skip.size === 0) return state;
    const files = new Map<string, string>();
    for (const [path, sig] of state.files) if (!underAny(path, skip)) files.set(path, sig);
    return { ...state, files };
  }

  /** Kept without files too (a walk that gave up): a later HEAD, index or rules still compare. */
  remember(cwd: string, state: WorktreeState): void {
    if (state.head === null) this.states.delete(cwd);
    else this.states.set(cwd, state);
  }
}

/** Whether `path` or a folder holding it is in `paths`. */
function underAny(path: string, paths: ReadonlySet<string>): boolean {
  for (let end = path.length; end > 0; end = path.lastIndexOf("/", end - 1)) {
    if (paths.has(path.slice(0, end))) return true;
  }
  return false;
}
