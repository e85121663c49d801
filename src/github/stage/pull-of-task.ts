import type { GithubClient, PullRequest } from "../../domain/github.js";
import type { Task } from "../../domain/types.js";

/** The task's pull request: the one it records (`meta.prNumber`), else the one for its branch. */
export async function pullOfTask(
  client: Pick<GithubClient, "getPull" | "findPullByHead">,
  task: Pick<Task, "meta" | "branch">,
): Promise<PullRequest | null> {
  if (task.meta.prNumber !== undefined) return client.getPull(task.meta.prNumber);
  return task.branch ? client.findPullByHead(task.branch) : null;
}

/** Context keys the GitHub stages set for workflow conditions (`context("github.pr_closed")`). */
export function pullContext(pull: PullRequest): Record<string, string | number | boolean> {
  return {
    "github.pr": pull.number,
    "github.pr_state": pull.state,
    "github.pr_closed": pull.state !== "open",
  };
}

export function closedMessage(pull: PullRequest): string {
  return `pull request #${pull.number} was ${pull.state === "merged" ? "merged" : "closed"}; nothing more to do for it`;
}
