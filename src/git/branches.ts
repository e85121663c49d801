import { FixpointError } from "../errors.js";
import { checkRev, type GitRunner } from "./exec.js";

export async function branchExists(git: GitRunner, repo: string, branch: string): Promise<boolean> {
  checkRev(branch, "branch name");
  const r = await git.run(repo, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], {
    okCodes: [1],
  });
  return r.code === 0;
}

/** What became of a branch: deleted, kept (its commits exist nowhere else, or git refused), or none found. */
export type BranchDeletion = "deleted" | "kept" | "missing";

/**
 * True only when every commit of `branch` is also reachable from another local branch, a
 * remote-tracking branch or a tag, so deleting the branch cannot lose work (SPEC §11).
 * A branch that does not exist is reported unsafe: "safe" is the claim that needs proof.
 */
export async function isBranchSafeToDelete(git: GitRunner, repo: string, branch: string): Promise<boolean> {
  const [plan] = await planDeletions(git, repo, [branch]);
  return plan === "deleted";
}

/** What became of one branch of `deleteBranchesIfSafe`; `why` when git kept a safe one. */
export interface BranchOutcome {
  branch: string;
  done: BranchDeletion;
  why?: string;
}

/** Branches named to one `git branch -D`: well inside any argument list's bound. */
const DELETE_BATCH = 500;

/**
 * Deletes, in order, each of `branches` whose every commit is still reachable from another ref
 * once those before it are gone (planDeletions): what isBranchSafeToDelete and `git branch -D`
 * did one by one, eight git processes a branch, two of which read every ref and one every
 * worktree. Here: three git processes for any number (one more when git refuses one). Git keeps
 * any it refuses (one checked out somewhere), and says why.
 */
export async function deleteBranchesIfSafe(
  git: GitRunner,
  repo: string,
  branches: readonly string[],
): Promise<BranchOutcome[]> {
  const plan = await planDeletions(git, repo, branches);
  const planned = branches.filter((_, i) => plan[i] === "deleted");
  const refused = new Map<string, string>();
  for (let i = 0; i < planned.length; i += DELETE_BATCH) {
    const batch = planned.slice(i, i + DELETE_BATCH);
    // -D: `-d` judges "merged" against HEAD and upstream only, which would refuse a branch that is
    // safe by the plan (pushed to a remote, merged into another branch). Git deletes what it can
    // and says which it refused (exit 1): those stay, with git's reason.
    const r = await git.run(repo, ["branch", "-D", ...batch], { okCodes: [1] });
    if (r.code === 0) continue;
    const said = refusals(r.stderr, batch);
    const left = await git.run(repo, ["for-each-ref", "--format=%(refname)", "refs/heads"]);
    const still = new Set(left.stdout.split("\n"));
    for (const b of batch) {
      if (still.has(`refs/heads/${b}`)) refused.set(b, said.get(b) ?? "git refused to delete it");
    }
  }
  return branches.map((branch, i) => {
    const why = plan[i] === "deleted" ? refused.get(branch) : undefined;
    return why === undefined ? { branch, done: plan[i] as BranchDeletion } : { branch, done: "kept", why };
  });
}

/**
 * Which of `branches`, taken in order, can go without losing a commit once those before them are
 * gone ("deleted"), which cannot ("kept"), and which are no branch ("missing"; so is a name's
 * second mention). The refs are listed once; one `rev-list` lists the commits only the candidates
 * reach (U), with their parents. A candidate whose tip is not in U is reachable from a ref that
 * stays. One whose tip is in U can go only while another candidate still here reaches it, along
 * commits of U (a path through any other commit would make the tip reachable from a ref that
 * stays).
 */
async function planDeletions(
  git: GitRunner,
  repo: string,
  branches: readonly string[],
): Promise<BranchDeletion[]> {
  for (const b of branches) checkRev(b, "branch name");
  const listed = await git.run(repo, [
    "for-each-ref",
    "--format=%(objectname) %(refname)",
    "refs/heads",
    "refs/remotes",
    "refs/tags",
  ]);
  const tips = new Map<string, string>();
  for (const line of listed.stdout.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) tips.set(line.slice(space + 1), line.slice(0, space));
  }
  const candidates = [...new Set(branches)].filter((b) => tips.has(`refs/heads/${b}`));
  const own = new Set(candidates.map((b) => `refs/heads/${b}`));
  const parents = await commitsOnlyIn(git, repo, own, tips);
  const reachers = reachersOfTips(candidates, tips, parents);
  const gone = new Set<string>();
  for (const b of candidates) {
    const tip = tips.get(`refs/heads/${b}`) as string;
    const safe = !parents.has(tip) || [...(reachers.get(tip) ?? [])].some((r) => r !== b && !gone.has(r));
    if (safe) gone.add(b);
  }
  const seen = new Set<string>();
  return branches.map((b) => {
    const first = !seen.has(b);
    seen.add(b);
    if (!first || !own.has(`refs/heads/${b}`)) return "missing";
    return gone.has(b) ? "deleted" : "kept";
  });
}

/**
 * The commits reachable from the `own` refs and from no other ref, each with its parents
 * (`rev-list --parents`); the refs go through stdin, as thousands would overflow an argument list.
 */
async function commitsOnlyIn(
  git: GitRunner,
  repo: string,
  own: ReadonlySet<string>,
  tips: ReadonlyMap<string, string>,
): Promise<Map<string, string[]>> {
  const parents = new Map<string, string[]>();
  if (own.size === 0) return parents;
  // `refs/remotes/origin/HEAD` is only an alias for another remote branch.
  const others = [...tips.keys()].filter((r) => !own.has(r) && !r.endsWith("/HEAD"));
  const input = [...own, ...others.map((r) => `^${r}`)].join("\n");
  const r = await git.run(repo, ["rev-list", "--parents", "--stdin"], { input: `${input}\n` });
  for (const line of r.stdout.split("\n")) {
    const [commit, ...up] = line.split(" ");
    if (commit) parents.set(commit, up);
  }
  return parents;
}

/**
 * For each candidate tip in `parents` (the commits only candidates reach), the candidates that
 * reach it: its own branch and any other whose walk down `parents` meets it.
 */
function reachersOfTips(
  candidates: readonly string[],
  tips: ReadonlyMap<string, string>,
  parents: ReadonlyMap<string, string[]>,
): Map<string, Set<string>> {
  const tipsInU = new Set<string>();
  for (const b of candidates) {
    const tip = tips.get(`refs/heads/${b}`) as string;
    if (parents.has(tip)) tipsInU.add(tip);
  }
  const reachers = new Map<string, Set<string>>();
  for (const b of candidates) {
    const start = tips.get(`refs/heads/${b}`) as string;
    if (!parents.has(start)) continue;
    const seen = new Set<string>([start]);
    for (const stack = [start]; stack.length > 0; ) {
      const c = stack.pop() as string;
      if (tipsInU.has(c)) {
        const set = reachers.get(c) ?? new Set<string>();
        set.add(b);
        reachers.set(c, set);
      }
      for (const p of parents.get(c) ?? []) {
        if (parents.has(p) && !seen.has(p)) {
          seen.add(p);
          stack.push(p);
        }
      }
    }
  }
  return reachers;
}

/** The branches of `batch` git named in a refusal on stderr, each with its line. */
function refusals(stderr: string, batch: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const names = new Set(batch);
  for (const line of stderr.split("\n")) {
    const m = /'([^']+)'/.exec(line);
    if (m?.[1] && names.has(m[1])) out.set(m[1], line.replace(/^error:\s*/, "").trim());
  }
  return out;
}

/** Deletes a local branch whose commits exist elsewhere; refuses (throws) otherwise. */
export async function deleteBranch(git: GitRunner, repo: string, branch: string): Promise<void> {
  const [r] = await deleteBranchesIfSafe(git, repo, [branch]);
  if (r?.done === "deleted") return;
  throw new FixpointError(
    "git",
    r?.why !== undefined
      ? `cannot delete branch ${branch}: ${r.why}`
      : r?.done === "kept"
        ? `refusing to delete branch ${branch}: it has commits not on any other branch, remote or tag`
        : `cannot delete branch ${branch}: no such branch`,
  );
}
