import type { GithubClient, PullRequest } from "../../domain/github.js";
import type { Store } from "../../domain/store.js";
import { type Finding, isApproval, type Task } from "../../domain/types.js";
import { crashPoint } from "../../engine/crash-points.js";
import { prBody } from "../render.js";
import type { GitRemote } from "./remote.js";

export interface OpenPullInput {
  client: GithubClient;
  remote: GitRemote;
  store: Store;
  task: Task;
  /** Where to push from: the task's worktree, or the repository for a finished task. */
  cwd: string;
  findings: Finding[];
  /** Configured `draft`: open as a draft until the task is approved. */
  draft: boolean;
  approved: boolean;
  /** The configured label (`label`), added so `pr watch` finds the PR. */
  label: string;
  now: number;
}

export type OpenPullOutcome =
  | { ok: true; pull: PullRequest; created: boolean }
  | { ok: false; reason: string; rejected: boolean };

/**
 * Publishes a task: pushes its branch (plainly — a remote with commits we did not make refuses,
 * and we stop there), then opens its PR or updates the open one for that branch with the title,
 * the body (summary, registry table, cost) and the draft state. Records the PR number on the task.
 */
export async function openOrUpdatePull(input: OpenPullInput): Promise<OpenPullOutcome> {
  const { client, task } = input;
  if (!task.branch)
    return { ok: false, rejected: false, reason: `${task.id} has no branch yet; run it first` };
  const pushed = await input.remote.push(input.cwd, task.branch);
  if (!pushed.ok) return pushed;
  // Killed here, the branch is on the remote and no PR names it yet: the next `pr open` pushes
  // again (the remote already has it: nothing changes) and opens the one PR.
  crashPoint("pr-pushed");
  const body = prBody({
    task: { id: task.id, title: task.title, summary: task.prompt },
    findings: input.findings,
    cost: await costOf(input.store, task.id),
  });
  const draft = input.draft && !input.approved;
  const existing = await client.findPullByHead(task.branch);
  let pull: PullRequest;
  let created = false;
  if (existing && existing.state === "open") {
    pull = await client.updatePull(existing.number, {
      title: task.title,
      body,
      ...(input.draft ? { draft } : {}),
    });
  } else {
    pull = await client.createPull({
      title: task.title,
      body,
      head: task.branch,
      base: task.baseBranch,
      draft,
    });
    created = true;
  }
  if (input.label && !pull.labels.includes(input.label)) await client.addLabels(pull.number, [input.label]);
  if (task.meta.prNumber !== pull.number) {
    await input.store.updateTask(task.id, { meta: { ...task.meta, prNumber: pull.number } }, input.now);
  }
  await input.store.appendEvents(
    [
      {
        taskId: task.id,
        runId: null,
        type: created ? "github.pr_opened" : "github.pr_updated",
        data: { pr: pull.number, url: pull.url, draft: pull.draft },
      },
    ],
    input.now,
  );
  return { ok: true, pull, created };
}

/** Approved as far as the task knows: its final verdict, or the current cycle's reviewers. */
export function taskApproved(task: Task): boolean {
  return isApproval(task.finalVerdict);
}

async function costOf(store: Store, taskId: string): Promise<{ usd: number; tokens: number }> {
  let usd = 0;
  let tokens = 0;
  for (const s of await store.listStageExecutions(taskId)) {
    usd += s.costUsd;
    tokens += s.usage.input + s.usage.output + s.usage.cacheRead + s.usage.cacheWrite;
  }
  return { usd, tokens };
}
