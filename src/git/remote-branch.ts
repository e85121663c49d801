import { FixpointError } from "../errors.js";
import { checkRev, type GitRunner, gitFailure } from "./exec.js";

/** Timeout and cancellation of a git command that talks to a remote. */
export interface NetOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What a git remote is asked for when task branches travel between machines (branch-sync). */
export interface PushWithLease {
  remote: string;
  branch: string;
  /** The commit to put on the remote branch. */
  sha: string;
  /** What the remote branch must still point at for the push to go through; null = absent. */
  expected: string | null;
}

/** A lease refusal, as git words it in `--porcelain` output or on stderr. */
const MOVED = /stale info|non-fast-forward|fetch first/i;

/** Default for network commands: a remote that hangs must not hold a stage forever. */
export const NET_TIMEOUT_MS = 120_000;

/** The sha of `branch` on `remote` (`git ls-remote`), null when the remote has no such branch. */
export async function remoteBranchSha(
  git: GitRunner,
  repo: string,
  remote: string,
  branch: string,
  opts: NetOptions = {},
): Promise<string | null> {
  const ref = `refs/heads/${checkRev(branch, "branch name")}`;
  const r = await git.run(repo, ["ls-remote", "--", checkRev(remote, "remote"), ref], net(opts));
  const line = r.stdout.split("\n").find((l) => l.endsWith(`\t${ref}`));
  return line ? (line.split("\t")[0] ?? null) : null;
}

/**
 * Fetches `branch` from `remote` into `refs/remotes/<remote>/<branch>` (forced: that ref mirrors
 * the remote, whatever happened to it) and returns its sha; null when the remote has no such branch.
 */
export async function fetchBranch(
  git: GitRunner,
  repo: string,
  remote: string,
  branch: string,
  opts: NetOptions = {},
): Promise<string | null> {
  checkRev(branch, "branch name");
  checkRev(remote, "remote");
  const sha = await remoteBranchSha(git, repo, remote, branch, opts);
  if (sha === null) return null;
  await git.run(
    repo,
    ["fetch", "--quiet", "--no-tags", "--", remote, `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`],
    net(opts),
  );
  return sha;
}

/**
 * `git push --force-with-lease=<branch>:<expected>`: replaces the remote branch with `sha` only
 * while it still points at `expected` (or is absent, when `expected` is null). A refusal throws a
 * retryable FixpointError("git") naming the remote and the branch; nothing is lost by it.
 */
export async function pushWithLease(
  git: GitRunner,
  cwd: string,
  push: PushWithLease,
  opts: NetOptions = {},
): Promise<void> {
  const ref = `refs/heads/${checkRev(push.branch, "branch name")}`;
  checkRev(push.sha);
  if (push.expected !== null) checkRev(push.expected);
  const r = await git.run(
    cwd,
    [
      "push",
      "--porcelain",
      "--quiet",
      `--force-with-lease=${ref}:${push.expected ?? ""}`,
      "--",
      checkRev(push.remote, "remote"),
      `${push.sha}:${ref}`,
    ],
    { ...net(opts), okCodes: [1, 128] },
  );
  if (r.code === 0) return;
  const text = `${r.stdout}\n${r.stderr}`;
  // `--porcelain` reports a refused ref as `!<TAB>src:dst<TAB>[rejected] (reason)`.
  const refused = r.stdout.split("\n").find((l) => l.startsWith("!"));
  const why = MOVED.test(text)
    ? `the remote's branch moved since this worker last pushed (${push.expected ? `expected ${push.expected.slice(0, 12)}` : "expected no branch"})`
    : refused
      ? (refused.split("\t").at(-1) ?? refused).trim()
      : gitFailure("push", r.stderr, `exit code ${r.code}`).message.replace(/^git push failed: /, "");
  throw new FixpointError(
    "git",
    `push of ${push.branch} to remote "${push.remote}" was refused: ${why}; the task stays resumable, check the remote and \`fixpoint retry\` it`,
    { retryable: true },
  );
}

/** Whether `ancestor` is reachable from `rev` (both must exist locally). */
export async function isAncestor(
  git: GitRunner,
  cwd: string,
  ancestor: string,
  rev: string,
): Promise<boolean> {
  const r = await git.run(cwd, ["merge-base", "--is-ancestor", checkRev(ancestor), checkRev(rev)], {
    okCodes: [1],
  });
  return r.code === 0;
}

/** Puts the worktree at `cwd` (its branch, index and files) at `sha`, dropping whatever differs. */
export async function resetHard(git: GitRunner, cwd: string, sha: string): Promise<void> {
  await git.run(cwd, ["reset", "--hard", "--quiet", checkRev(sha)]);
  await git.run(cwd, ["clean", "-fdq"]);
}

function net(opts: NetOptions): NetOptions {
  return { timeoutMs: opts.timeoutMs ?? NET_TIMEOUT_MS, ...(opts.signal ? { signal: opts.signal } : {}) };
}
