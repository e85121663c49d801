import type { Config, GithubConfig } from "../../config/types.js";
import type { Clock } from "../../domain/clock.js";
import type { Git } from "../../domain/git.js";
import type { GithubClient, PullRequest } from "../../domain/github.js";
import type { ProcessRunner } from "../../domain/process.js";
import type { Store } from "../../domain/store.js";
import type { Task, TaskSummary } from "../../domain/types.js";
import { errorMessage, FixpointError } from "../../errors.js";
import { escalateRework } from "./escalate.js";
import { hasNewFeedback } from "./new-feedback.js";
import { closedMessage } from "./pull-of-task.js";
import type { GitRemote } from "./remote.js";
import { decideRework, reworkTaskId, reworkTaskPrefix } from "./rework-plan.js";

export interface ReworkDeps {
  store: Store;
  client: GithubClient;
  remote: GitRemote;
  git: Git;
  config: Config & { github: GithubConfig };
  /** The repository's main checkout. */
  root: string;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
  clock: Clock;
}

export type ReworkStart =
  /** Nothing to run: the PR was merged or closed, or nobody spoke since fixpoint's last answers. */
  | { kind: "closed"; message: string }
  | { kind: "limit"; message: string; taskId: string | null; notified: boolean; notifyError?: string }
  | { kind: "run"; task: Task; created: boolean; notices: string[] };

/**
 * `fixpoint pr rework <n>` up to the point where the task runs: decide (rework-plan.ts), then
 * escalate, or continue the unfinished task, or create `pr-<n>-cycle-<k>` once
 * (`createTaskOnce`) on the PR's branch — the original task's worktree when there is one, else
 * a local branch made from the remote one.
 */
export async function startRework(deps: ReworkDeps, prNumber: number): Promise<ReworkStart> {
  const { store, config } = deps;
  const pull = await deps.client.getPull(prNumber);
  const decision = decideRework(pull, await reworkCandidates(store, pull), config.github.maxReworkCycles);
  switch (decision.kind) {
    case "closed":
      return { kind: "closed", message: `${closedMessage(pull)}; rework stopped` };
    case "continue":
      return { kind: "run", task: await requireTask(store, decision.task.id), created: false, notices: [] };
    case "limit": {
      const max = config.github.maxReworkCycles;
      const reason = `pull request #${prNumber} still has review feedback after ${decision.cycles} rework cycle${decision.cycles === 1 ? "" : "s"} (max-rework-cycles ${max}); a human must take it from here`;
      const r = await escalateRework({
        store,
        runner: deps.runner,
        pr: prNumber,
        task: decision.escalate,
        reason,
        ...((config.github.notify ?? config.notify) ? { notify: config.github.notify ?? config.notify } : {}),
        cwd: deps.root,
        env: deps.env,
        now: deps.clock.now(),
      });
      const who = decision.escalate ? `${decision.escalate.id} needs a human: ` : "";
      return { kind: "limit", message: `${who}${reason}`, taskId: decision.escalate?.id ?? null, ...r };
    }
    case "create":
      // A later cycle starts only for feedback fixpoint has not answered yet.
      if (
        decision.previous &&
        !(await hasNewFeedback(deps.client, store, config.github, prNumber, deps.clock))
      )
        return {
          kind: "closed",
          message: `PR #${prNumber}: no new review feedback since ${decision.previous.id}; nothing to rework`,
        };
      return createReworkTask(deps, pull, decision);
  }
}

async function createReworkTask(
  deps: ReworkDeps,
  pull: PullRequest,
  d: { cycle: number; original: TaskSummary | null; previous: TaskSummary | null },
): Promise<ReworkStart> {
  const { store, config, root } = deps;
  const notices: string[] = [];
  const sha = await deps.remote.fetchBranch(root, pull.head);
  if (sha === null) {
    throw new FixpointError("git", `branch ${pull.head} of pull request #${pull.number} is not on origin`);
  }
  try {
    const sync = await deps.remote.syncLocalBranch(root, pull.head, sha);
    if (sync === "diverged")
      notices.push(
        `local ${pull.head} and origin/${pull.head} have diverged; the push will be refused until they are merged`,
      );
  } catch (e) {
    notices.push(`could not bring ${pull.head} up to date with origin: ${errorMessage(e)}`);
  }
  const id = reworkTaskId(pull.number, d.cycle);
  const { task, created } = await store.createTaskOnce(
    {
      id,
      type: "pr-rework",
      title: `PR #${pull.number} rework, cycle ${d.cycle}`,
      // The PR's own title and body are written by whoever opened it: they stay out of prompts.
      prompt: `Address the review feedback on pull request #${pull.number} of ${config.github.repo} (branch ${pull.head}). Every unresolved review thread from an allowed reviewer is listed as a finding.`,
      workflow: "pr-rework",
      repo: root,
      baseBranch: await baseRef(deps, pull.base),
      maxCycles: config.defaults.maxCycles,
      budget: config.defaults.budget,
      meta: { prNumber: pull.number, reworkCycle: d.cycle, ...(d.original ? { origin: d.original.id } : {}) },
      parentId: d.original?.id ?? null,
      branch: pull.head,
      worktreePath: d.previous?.worktreePath ?? d.original?.worktreePath ?? null,
    },
    deps.clock.now(),
  );
  if (created) {
    await store.appendEvents(
      [
        {
          taskId: id,
          runId: null,
          type: "task.queued",
          data: { workflow: "pr-rework", pr: pull.number, cycle: d.cycle, head: sha },
        },
      ],
      deps.clock.now(),
    );
  }
  return { kind: "run", task, created, notices };
}

/** The PR's base as a local revision: the local branch, else the remote one just fetched. */
async function baseRef(deps: ReworkDeps, base: string): Promise<string> {
  if (await deps.git.revParse(deps.root, base)) return base;
  if ((await deps.remote.fetchBranch(deps.root, base)) !== null) return `origin/${base}`;
  throw new FixpointError("git", `base branch ${base} is neither local nor on origin`);
}

async function requireTask(store: Store, id: string): Promise<Task> {
  const t = await store.getTask(id);
  if (!t) throw new FixpointError("not_found", `no task \`${id}\``);
  return t;
}

/**
 * The tasks `decideRework` looks at: the PR's rework tasks and the tasks on its branch, read by
 * those two filters instead of every task in the store (a `pr watch` asks once per PR per poll).
 */
async function reworkCandidates(
  store: Pick<Store, "listTaskSummaries">,
  pull: PullRequest,
): Promise<TaskSummary[]> {
  const [rework, onBranch] = await Promise.all([
    store.listTaskSummaries({ idPrefix: reworkTaskPrefix(pull.number) }),
    store.listTaskSummaries({ branch: pull.head }),
  ]);
  const ids = new Set(rework.map((t) => t.id));
  return [...rework, ...onBranch.filter((t) => !ids.has(t.id))];
}
