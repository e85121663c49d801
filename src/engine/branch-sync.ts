import { worktreePath } from "../domain/naming.js";
import type { Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { crashPoint } from "./crash-points.js";
import type { EngineDeps } from "./deps.js";
import { renewLease } from "./lease-keeper.js";
import { turnsMarkerKey } from "./turns.js";

/**
 * Task branches through a remote, so a task can move between machines (SPEC §13, issue 12).
 * With `defaults { push-remote "origin" }`, every stage that committed pushes the task branch
 * BEFORE the checkpoint recording its sha is written, with `--force-with-lease` against the sha
 * this worker last saw there: the remote never lacks a commit a checkpoint names, and two
 * workers can never overwrite each other's push unseen.
 *
 * A worker that claims the task fetches the branch and puts its worktree at the checkpoint's
 * recorded sha (the newest `headAfter` of the task's recorded stages). Work found beyond it —
 * a push whose checkpoint was lost, or commits of a clone that ran the task before — is dropped
 * from the worktree and an event says so; the stage that made it runs again from the
 * checkpoint, and the next push replaces the remote branch (its lease is the remote's sha).
 * Commits this same clone made beyond the checkpoint are kept, as on one machine (run-setup).
 */
export interface BranchSync {
  /** Pushes `sha` (a stage's head after it ran) unless the remote already has it. */
  push(sha: string | null): Promise<void>;
}

/**
 * With a push remote, a task runs in the clone of the worker that claimed it, whichever clone
 * queued it: its repository is this project and its worktree this machine's (the paths stored
 * with the task are another machine's). Without one, the task is returned unchanged.
 */
export function inThisClone(task: Task, deps: EngineDeps): Task {
  if (!deps.config.defaults.pushRemote) return task;
  const path = worktreePath(deps.config.worktrees, deps.projectRoot, task.id);
  if (task.repo === deps.projectRoot && task.worktreePath === path) return task;
  return { ...task, repo: deps.projectRoot, worktreePath: path };
}

/**
 * `inThisClone`, and the task's worktree recorded as this clone's (fenced by the run's lease) when
 * the stored one is another clone's: `show` then names the worktree where the task last ran. The
 * stored `repo` stays the clone the task was queued in; readers in any clone resolve the branch
 * in their own (src/app/task-branch.ts).
 */
export async function recordInThisClone(task: Task, deps: EngineDeps): Promise<Task> {
  const here = inThisClone(task, deps);
  if (here === task || task.worktreePath === null || here.worktreePath === task.worktreePath) return here;
  const now = deps.clock.now();
  await deps.store.transaction((tx) => tx.updateTask(task.id, { worktreePath: here.worktreePath }, now), {
    fence: deps.lease,
  });
  return here;
}

/** Events the takeover records; the type names are part of `fixpoint logs`' vocabulary. */
export const BRANCH_RESET_EVENT = "branch.reset";

/**
 * Prepares the task's worktree at the start of a claimed run (after its worktree and run exist)
 * and returns the pusher; null when no push remote is configured (one machine: nothing changes).
 * `stages` are the stage ids whose saved agent replies are forgotten when the worktree holds no
 * work beyond the checkpoint: that work is in another clone (or was reset away), so they run again.
 */
export async function openBranchSync(
  task: Task,
  workdir: string,
  deps: EngineDeps,
  opts: { signal: AbortSignal; runId: number; stages: string[] },
): Promise<BranchSync | null> {
  const remote = deps.config.defaults.pushRemote;
  if (!remote) return null;
  const branch = task.branch;
  if (!branch) throw new FixpointError("internal", `task ${task.id} has no branch to push`);
  const net = { signal: opts.signal };
  let remoteSha = await deps.git.fetchBranch(workdir, remote, branch, net).catch((e: unknown) => {
    if (!(e instanceof FixpointError) || opts.signal.aborted) throw e;
    throw new FixpointError(
      "git",
      `cannot fetch branch ${branch} from remote "${remote}" (${e.message}); fix \`push-remote\` in fixpoint.kdl or FIXPOINT_PUSH_REMOTE, then \`fixpoint retry ${task.id}\``,
      { retryable: true, cause: e },
    );
  });
  const recorded = await recordedHead(deps, task.id);
  const local = await deps.git.headSha(workdir);
  if (recorded !== null && local !== recorded) {
    if ((await deps.git.revParse(workdir, `${recorded}^{commit}`)) === null) {
      throw new FixpointError(
        "git",
        `task ${task.id}: its checkpoint names commit ${recorded.slice(0, 12)}, which is neither in this clone nor on branch ${branch} of remote "${remote}"; fetch it into this clone, then \`fixpoint retry ${task.id}\``,
        { retryable: true },
      );
    }
    if (!(await deps.git.isAncestor(workdir, recorded, local))) {
      await deps.git.resetHard(workdir, recorded);
      await recordReset(deps, task.id, opts.runId, {
        remote,
        branch,
        from: local,
        to: recorded,
        remoteSha,
        why: "worktree-behind-checkpoint",
      });
    }
  }
  const head = await deps.git.headSha(workdir);
  // A saved agent reply stands in for work on disk (turns.ts). A worktree holding nothing beyond
  // the checkpoint (another clone ran that agent, or the work was reset away) must run it again.
  const start = recorded ?? (await deps.git.revParse(workdir, task.baseBranch));
  if (head === start && (await deps.git.status(workdir)).length === 0)
    await forgetSavedTurns(task.id, opts, deps);
  if (remoteSha !== null && remoteSha !== head && !(await deps.git.isAncestor(workdir, remoteSha, head))) {
    // The remote holds commits no checkpoint names (a push whose checkpoint was lost): they are
    // not in this worktree; the next push replaces them, leasing against exactly this sha.
    await recordReset(deps, task.id, opts.runId, {
      remote,
      branch,
      from: remoteSha,
      to: head,
      remoteSha,
      why: "remote-ahead-of-checkpoint",
    });
  }
  return {
    async push(sha) {
      if (sha === null || sha === remoteSha) return;
      await proveLease(deps, task.id);
      await deps.git.pushWithLease(workdir, { remote, branch, sha, expected: remoteSha }, net);
      remoteSha = sha;
      crashPoint("pushed");
    },
  };
}

/**
 * The push is fenced like a store write: right before it, the worker renews its lease in one
 * round trip to the database (worker id and token checked, the lease extended by a whole lease
 * from the server's clock). A worker cut off from the database, or whose task another worker took
 * over, never pushes over the new owner's branch: the renewal fails (unreachable: a store error;
 * taken over: `lease_lost`) and nothing is pushed. Without a lease (no worker runs this) nothing
 * is checked.
 */
async function proveLease(deps: EngineDeps, taskId: string): Promise<void> {
  const lease = deps.lease;
  if (lease === undefined) return;
  if (deps.leaseMs === undefined) {
    await deps.store.transaction(async () => undefined, { fence: lease });
    return;
  }
  const held = await renewLease(deps.store, lease, deps.leaseMs, deps.clock.now());
  if (held === "lost") {
    throw new FixpointError(
      "lease_lost",
      `task ${taskId} is no longer held by this worker; its branch was not pushed and nothing was recorded`,
    );
  }
}

/** The commit the task's last recorded stage left its branch at; null before any. */
async function recordedHead(deps: EngineDeps, taskId: string): Promise<string | null> {
  const stages = await deps.store.listStageExecutions(taskId);
  let best: { id: number; sha: string } | null = null;
  for (const s of stages) {
    if (s.headAfter && (best === null || s.id > best.id)) best = { id: s.id, sha: s.headAfter };
  }
  return best?.sha ?? null;
}

/** A saved reply of a stage whose work was reset away must not stand in for the work (turns.ts). */
async function forgetSavedTurns(
  taskId: string,
  opts: { runId: number; stages: string[] },
  deps: EngineDeps,
): Promise<void> {
  if (opts.stages.length === 0) return;
  const now = deps.clock.now();
  await deps.store.transaction(
    async (tx) => {
      for (const id of opts.stages) {
        const key = turnsMarkerKey(taskId, opts.runId, id);
        if ((await tx.getMarker(key)) !== null) await tx.setMarker(key, {}, now);
      }
    },
    { fence: deps.lease },
  );
}

async function recordReset(
  deps: EngineDeps,
  taskId: string,
  runId: number,
  data: { remote: string; branch: string; from: string; to: string; remoteSha: string | null; why: string },
): Promise<void> {
  const now = deps.clock.now();
  await deps.store.transaction(
    (tx) => tx.appendEvents([{ taskId, runId, type: BRANCH_RESET_EVENT, data: { ...data } }], now),
    { fence: deps.lease },
  );
  const message =
    data.why === "remote-ahead-of-checkpoint"
      ? `${taskId}: branch ${data.branch} on remote "${data.remote}" is at ${data.from.slice(0, 12)}, ahead of the last checkpoint (${data.to.slice(0, 12)}); continuing from the checkpoint, the next push replaces it`
      : `${taskId}: worktree reset from ${data.from.slice(0, 12)} to the last checkpoint's ${data.to.slice(0, 12)}`;
  deps.listener({ type: "notice", taskId, message });
}
