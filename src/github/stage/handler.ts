import type { GithubClient } from "../../domain/github.js";
import { isApproval } from "../../domain/types.js";
import { crashPoint } from "../../engine/crash-points.js";
import type { StageContext, StageHandler, StageResult } from "../../engine/deps.js";
import { errorMessage, FixpointError } from "../../errors.js";
import type { StageDef } from "../../workflow/types.js";
import { awaitReview } from "./await-review.js";
import { memoClient } from "./client.js";
import { fileTaskIssues, issuesSummary } from "./file-issues.js";
import { ingestFeedback } from "./ingest.js";
import { openOrUpdatePull } from "./open-pr.js";
import { closedMessage, pullContext, pullOfTask } from "./pull-of-task.js";
import { createGitRemote, type GitRemote } from "./remote.js";
import { replyToThreads } from "./reply.js";
import { ghFail, ghPartial, ghSkipped, ghSuccess } from "./result.js";
import type { GithubStageDeps } from "./stage-deps.js";

export type { GithubStageDeps } from "./stage-deps.js";

export const GITHUB_ACTIONS = ["open-pr", "ingest", "push", "reply", "await-review", "file-issues"] as const;

/**
 * The `github` stage kind (SPEC §6, §11): `open-pr`, `ingest`, `push`, `reply`, `await-review`,
 * `file-issues`.
 * Expected failures — a rejected push, GitHub refusing a call — are failed stages with a reason a
 * person can act on; the token is resolved on first use so a task without GitHub stages never
 * needs one.
 */
export function createGithubStageHandler(deps: GithubStageDeps): StageHandler {
  const client = memoClient(deps.client);
  const remote = deps.remote ?? createGitRemote();
  return {
    async run(stage: StageDef, ctx: StageContext): Promise<StageResult> {
      const action = stage.action ?? "";
      try {
        switch (action) {
          case "ingest":
            return await ingestFeedback(await client(), deps, ctx);
          case "reply":
            return await replyToThreads(await client(), deps, ctx);
          case "await-review":
            return await awaitReview(await client(), deps, stage, ctx);
          case "push":
            return await push(await client(), remote, ctx);
          case "open-pr":
            return await openPr(await client(), remote, deps, ctx);
          case "file-issues":
            return await fileIssues(await client(), deps, ctx);
          default:
            return ghFail(
              `unknown github action \`${action}\` (one of ${GITHUB_ACTIONS.join(", ")})`,
              "config",
            );
        }
      } catch (e) {
        const config = e instanceof FixpointError && e.code === "config";
        return ghFail(`github ${action}: ${errorMessage(e)}`, config ? "config" : "internal");
      }
    },
  };
}

/** Pushes the task's branch unless its PR was closed or merged meanwhile. */
async function push(client: GithubClient, remote: GitRemote, ctx: StageContext) {
  const branch = ctx.task.branch;
  if (!branch) return ghFail("the task has no branch to push", "config");
  const pull = await pullOfTask(client, ctx.task);
  if (pull && pull.state !== "open")
    return ghSkipped(`${closedMessage(pull)}; not pushed`, { context: pullContext(pull) });
  const head = await ctx.deps.git.headSha(ctx.workdir);
  const r = await remote.push(ctx.workdir, branch);
  const extra = { headBefore: head, headAfter: head, ...(pull ? { context: pullContext(pull) } : {}) };
  if (!r.ok) return ghFail(r.reason, "exit_nonzero", extra);
  crashPoint("pr-pushed");
  return ghSuccess(`pushed ${branch} at ${head.slice(0, 12)}`, { type: "none" }, extra);
}

async function openPr(client: GithubClient, remote: GitRemote, deps: GithubStageDeps, ctx: StageContext) {
  const verdicts = Object.values(ctx.state.verdicts);
  const approved =
    verdicts.length > 0 && verdicts.every((v) => isApproval(v)) && ctx.registry.blockingOpen() === 0;
  const task = (await deps.store.getTask(ctx.task.id)) ?? ctx.task;
  const r = await openOrUpdatePull({
    client,
    remote,
    store: deps.store,
    task,
    cwd: ctx.workdir,
    findings: ctx.registry.all(),
    draft: deps.config.draft,
    label: deps.config.label,
    approved,
    now: deps.clock.now(),
  });
  if (!r.ok) return ghFail(r.reason);
  return ghSuccess(
    `${r.created ? "opened" : "updated"} PR #${r.pull.number} ${r.pull.url}`,
    { type: "none" },
    { context: pullContext(r.pull) },
  );
}

async function fileIssues(client: GithubClient, deps: GithubStageDeps, ctx: StageContext) {
  const r = await fileTaskIssues({
    client,
    store: deps.store,
    task: ctx.task,
    findings: ctx.registry.all(),
    label: deps.config.techDebtLabel,
    followups: ctx.deps.config.defaults.followups,
    blockingSeverity: ctx.deps.config.defaults.blockingSeverity,
    now: deps.clock.now(),
  });
  const summary = issuesSummary(r);
  return r.failed.length ? ghPartial(summary, summary) : ghSuccess(summary);
}
