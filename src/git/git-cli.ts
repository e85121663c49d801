import type { Git } from "../domain/git.js";
import {
  deleteBranchesIfSafe,
  isBranchSafeToDelete,
  branchExists as refExists,
  deleteBranch as removeBranch,
} from "./branches.js";
import { CleanStates, type WorktreeState } from "./clean-state.js";
import { checkRev, createGitRunner, type GitRunner, gitFailure } from "./exec.js";
import { indexStamp, readHead, worktreeTop } from "./fs-state.js";
import { fetchBranch, isAncestor, pushWithLease, remoteBranchSha, resetHard } from "./remote-branch.js";
import { ensureWorktree, listWorktrees, removeWorktree } from "./worktrees.js";

export interface GitCliDeps {
  /** The git executable; default `git` from PATH. */
  gitPath: string;
  /** Extra environment for every git process (on top of process.env). */
  env: NodeJS.ProcessEnv;
  /** Bound on each git process (default DEFAULT_GIT_TIMEOUT_MS). */
  timeoutMs: number;
  /** Aborting it kills every git process of this Git, running or to come. */
  signal: AbortSignal;
}

/** Used only when neither the repository nor the user's git config names anyone. */
const FALLBACK_IDENTITY = { "user.name": "fixpoint", "user.email": "fixpoint@localhost" } as const;

/** The Git contract (src/domain/git.ts) implemented by running the real `git` binary. */
export function createGit(deps: Partial<GitCliDeps> = {}): Git {
  const git = createGitRunner(deps);
  const identity = createIdentityLookup(git);

  const clean = new CleanStates();
  const commitAll = committer(git, identity, clean);

  return {
    async repoRoot(cwd) {
      // Read from the files when the layout is plain: every command starts here (issue 10).
      const top = worktreeTop(cwd, { ...process.env, ...deps.env });
      if (top !== null) return top;
      const r = await git.run(cwd, ["rev-parse", "--show-toplevel"], { okCodes: [128] });
      if (r.code === 0) return r.stdout.trim();
      // 128 is also "dubious ownership" and other real problems, which must not read as "no repo".
      if (/not a git repository/i.test(r.stderr)) return null;
      throw gitFailure("rev-parse", r.stderr);
    },

    async currentBranch(repo) {
      // Exit 1 is a detached HEAD, which has no branch.
      const r = await git.run(repo, ["symbolic-ref", "--quiet", "--short", "HEAD"], { okCodes: [1] });
      return r.code === 0 ? r.stdout.trim() : null;
    },

    async headSha(cwd) {
      return readHead(cwd) ?? (await git.run(cwd, ["rev-parse", "--verify", "HEAD"])).stdout.trim();
    },

    async revParse(cwd, rev) {
      checkRev(rev);
      const r = await git.run(cwd, ["rev-parse", "--verify", "--quiet", rev], { okCodes: [1] });
      return r.code === 0 ? r.stdout.trim() : null;
    },

    branchExists: (repo, branch) => refExists(git, repo, branch),

    async checkout(repo, branch) {
      await git.run(repo, ["switch", "--quiet", checkRev(branch)]);
    },

    async status(cwd) {
      const r = await git.run(cwd, ["status", "--porcelain"]);
      return r.stdout.split("\n").filter((l) => l.length > 0);
    },

    async ensureWorktree(opts) {
      const wt = await ensureWorktree(git, opts);
      // A worktree git has just checked out holds only tracked files, as one we have just committed
      // in: remembered, the first stage that changes nothing there costs no git process either.
      if (wt.created) clean.remember(wt.path, clean.observe(wt.path));
      return wt;
    },
    removeWorktree: (repo, path) => removeWorktree(git, repo, path),
    listWorktrees: (repo) => listWorktrees(git, repo),

    commitAll: (cwd, message, opts) => commitAll(cwd, message, opts?.head, opts?.beforeCommit),

    async commitsBetween(cwd, from, to) {
      const range = `${checkRev(from)}..${checkRev(to)}`;
      const r = await git.run(cwd, ["log", "--reverse", "--format=%H %s", range, "--"]);
      return r.stdout
        .split("\n")
        .filter((l) => l.length > 0)
        .map((l) => {
          const space = l.indexOf(" ");
          return space < 0
            ? { sha: l, subject: "" }
            : { sha: l.slice(0, space), subject: l.slice(space + 1) };
        });
    },

    async diff(cwd, from, opts = {}) {
      const to = checkRev(opts.to ?? "HEAD");
      checkRev(from);
      const revs = opts.mergeBase ? [`${from}...${to}`] : [from, to];
      // Fixed prefixes and no colour/external tools, whatever the user's diff config says:
      // the text is parsed and shown to agents, so it must look the same on every machine.
      const r = await git.run(cwd, [
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        ...revs,
        "--",
      ]);
      return r.stdout;
    },

    async changedFiles(cwd, from, to = "HEAD") {
      const r = await git.run(cwd, [
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        checkRev(from),
        checkRev(to),
        "--",
      ]);
      return r.stdout.split("\0").filter((p) => p.length > 0);
    },

    async trackedFiles(cwd) {
      const r = await git.run(cwd, ["ls-files", "-z", "--full-name"]);
      return r.stdout.split("\0").filter((p) => p.length > 0);
    },
    isBranchSafeToDelete: (repo, branch) => isBranchSafeToDelete(git, repo, branch),
    deleteBranch: (repo, branch) => removeBranch(git, repo, branch),
    deleteBranchesIfSafe: (repo, branches) => deleteBranchesIfSafe(git, repo, branches),

    remoteBranchSha: (repo, remote, branch, opts) => remoteBranchSha(git, repo, remote, branch, opts),
    fetchBranch: (repo, remote, branch, opts) => fetchBranch(git, repo, remote, branch, opts),
    pushWithLease: (cwd, push, opts) => pushWithLease(git, cwd, push, opts),
    isAncestor: (cwd, ancestor, rev) => isAncestor(git, cwd, ancestor, rev),
    resetHard: (cwd, sha) => resetHard(git, cwd, sha),
  };
}

/**
 * Returns the `-c` flags a commit in `cwd` needs: none when the user's identity is configured
 * (their name belongs on the commits), fallbacks for whatever is missing otherwise. Looked up once
 * per folder, since the answer can differ between repositories but not between commits.
 */
function createIdentityLookup(git: GitRunner): (cwd: string) => Promise<string[]> {
  const cache = new Map<string, Promise<string[]>>();
  const lookup = async (cwd: string): Promise<string[]> => {
    // Both keys in one process (exit 1: neither is set). `-z` ends each entry with NUL and puts a
    // newline between key and value; a key set twice takes its last value, as `git config <key>`.
    const r = await git.run(cwd, ["config", "-z", "--get-regexp", "^user\\.(name|email)$"], { okCodes: [1] });
    const set = new Map<string, string>();
    for (const entry of r.code === 0 ? r.stdout.split("\0") : []) {
      const newline = entry.indexOf("\n");
      if (newline > 0) set.set(entry.slice(0, newline), entry.slice(newline + 1));
    }
    const flags: string[] = [];
    for (const [key, fallback] of Object.entries(FALLBACK_IDENTITY)) {
      if ((set.get(key) ?? "").trim() === "") flags.push("-c", `${key}=${fallback}`);
    }
    return flags;
  };
  return (cwd) => {
    let found = cache.get(cwd);
    if (!found) {
      found = lookup(cwd);
      // A failed lookup must not be remembered; the next commit asks again.
      found.catch(() => cache.delete(cwd));
      cache.set(cwd, found);
    }
    return found;
  };
}

/**
 * Issue 10: no git process when nothing changed since our last commit here, one (`commit -a`)
 * when only files that were already there changed, two (`add -A`, `commit`) otherwise.
 */
function committer(
  git: ReturnType<typeof createGitRunner>,
  identity: ReturnType<typeof createIdentityLookup>,
  clean: CleanStates,
): (
  cwd: string,
  message: string,
  head?: string,
  beforeCommit?: () => Promise<void>,
) => Promise<string | null> {
  return async function commitAll(cwd, message, head, beforeCommit): Promise<string | null> {
    let now = clean.observe(cwd, head);
    if (clean.wantsIgnored(cwd, now)) {
      // Too many files to walk: perhaps a large folder git ignores (node_modules, build output).
      clean.setIgnored(cwd, await ignoredPaths(git, cwd));
      now = clean.observe(cwd, head);
    }
    let known = clean.compare(cwd, now);
    if (now.files === null) {
      // Still too much to walk (or unreadable): one `git status` tells whether there is anything
      // to commit, and whether `commit -a` takes all of it.
      const status = await worktreeStatus(git, cwd);
      if (status === "clean") {
        clean.remember(cwd, now);
        return null;
      }
      known = {
        kind: status === "tracked" ? "only-existing-files" : "unknown",
        added: status === "untracked",
      };
    }
    if (known.kind === "unchanged") {
      // The same files, now perhaps with settled stamps where the last look had content stamps
      // (files changed just before it): kept, or every later look would read those files again.
      clean.remember(cwd, now);
      return null;
    }
    await beforeCommit?.();
    const who = await identity(cwd);
    if (known.kind !== "only-existing-files") await git.run(cwd, ["add", "-A"]);
    // The message goes through stdin: any text is safe and no editor is ever opened. Exit 1 is
    // git's "nothing to commit".
    const r = await git.run(
      cwd,
      [
        ...who,
        "commit",
        "--no-verify",
        "--quiet",
        ...(known.kind === "only-existing-files" ? ["-a"] : []),
        "-F",
        "-",
      ],
      { input: message, okCodes: [1] },
    );
    if (r.code === 1 && !/nothing (added )?to commit|no changes added/i.test(`${r.stdout}\n${r.stderr}`)) {
      throw gitFailure("commit", r.stderr || r.stdout, "exit code 1");
    }
    const sha = readHead(cwd) ?? (await git.run(cwd, ["rev-parse", "--verify", "HEAD"])).stdout.trim();
    let after: WorktreeState = { ...now, head: sha, index: indexStamp(cwd) };
    if (clean.ignoredInvalid(cwd) || (known.added && r.code === 1)) {
      // New paths and nothing to commit: git ignores them. Or the ignore rules changed. The state
      // stays the one read before the commit (a change made since shows next time), less what git
      // ignores now.
      clean.setIgnored(cwd, await ignoredPaths(git, cwd));
      after = clean.withoutIgnored(cwd, after);
    } else if (known.added) clean.ignoredIncomplete(cwd);
    clean.remember(cwd, after);
    return r.code === 1 ? null : sha;
  };
}

/**
 * What git ignores and does not track in the worktree at `cwd` (its top level): files, and folders
 * with nothing tracked in them as one entry each (`--directory`), relative and `/`-separated.
 */
async function ignoredPaths(git: GitRunner, cwd: string): Promise<Set<string>> {
  const r = await git.run(cwd, [
    "ls-files",
    "-z",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--directory",
    "--no-empty-directory",
  ]);
  const out = new Set<string>();
  for (const path of r.stdout.split("\0")) if (path) out.add(path.endsWith("/") ? path.slice(0, -1) : path);
  return out;
}

/**
 * What `git status` sees in the worktree at `cwd`: nothing to commit; only tracked files changed
 * (or staged), which `commit -a` takes; or files git does not know yet (or a conflict), for which
 * everything is added first.
 */
async function worktreeStatus(git: GitRunner, cwd: string): Promise<"clean" | "tracked" | "untracked"> {
  // Without refreshing the index (an optional lock): our index stamp stays what we read.
  const r = await git.run(cwd, [
    "--no-optional-locks",
    "status",
    "--porcelain=v2",
    "-z",
    "--untracked-files=normal",
  ]);
  const entries = r.stdout.split("\0");
  let seen = false;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    if (entry === "") continue;
    seen = true;
    if (entry.startsWith("? ") || entry.startsWith("u ")) return "untracked";
    // A rename or copy names its source in the next entry.
    if (entry.startsWith("2 ")) i++;
  }
  return seen ? "tracked" : "clean";
}
