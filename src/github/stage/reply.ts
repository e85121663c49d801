import type { GithubClient, PullRequest, ReviewThread } from "../../domain/github.js";
import type { Finding } from "../../domain/types.js";
import { crashPoint } from "../../engine/crash-points.js";
import type { StageContext, StageResult } from "../../engine/deps.js";
import { errorMessage } from "../../errors.js";
import { REFUTED_PREFIX } from "../../findings/registry-verify.js";
import type { Disposition } from "../render.js";
import { respondToThread } from "../thread-reply.js";
import { closedMessage, pullContext, pullOfTask } from "./pull-of-task.js";
import { ghFail, ghPartial, ghSkipped, ghSuccess } from "./result.js";
import type { GithubStageDeps } from "./stage-deps.js";

/**
 * The marker that says fixpoint answered `thread` of `pr` in fix cycle `cycle` of `taskId`: each
 * rework task (`pr-<n>-cycle-<k>`) restarts its fix cycles at 1, so the task is part of the key.
 */
export function replyMarkerKey(
  pr: number,
  threadId: string,
  cycle: number | "refuted",
  taskId: string,
): string {
  return `gh-reply:${pr}:${threadId}:${taskId}:${cycle}`;
}

/** What the fixer did about a finding this cycle, as a thread reply; null when it was not shown to the fixer. */
export function dispositionOf(f: Finding, cycle: number): Disposition | null {
  const a = f.attempts.filter((x) => x.cycle === cycle).at(-1);
  if (!a) return refutedNow(f);
  const justification = a.rejection ? `${a.justification} (not accepted: ${a.rejection})` : a.justification;
  return { status: a.status, justification, ...(a.commitSha ? { sha: a.commitSha } : {}) };
}

/**
 * Dismissed by a verify stage (`refuted: <evidence>`): answered with the evidence, once per task
 * (its marker has no cycle).
 */
function refutedNow(f: Finding): Disposition | null {
  if (f.status !== "dismissed" || !f.note?.startsWith(REFUTED_PREFIX)) return null;
  return { status: "refuted", justification: f.note.slice(REFUTED_PREFIX.length) };
}

/**
 * `reply`: after the fix was pushed, answer every ingested thread with its finding's disposition
 * (`Applied in <sha>: …` / `Declined: …`) and resolve the bots' threads. At most one reply per
 * thread and cycle: a store marker records each answer, and a thread whose last word is already
 * ours, or that holds a reply tagged with the marker's key (a crash between the reply and the
 * marker), gets none.
 */
export async function replyToThreads(
  client: GithubClient,
  deps: GithubStageDeps,
  ctx: StageContext,
): Promise<StageResult> {
  const pull = await pullOfTask(client, ctx.task);
  if (!pull) return ghSkipped(`no pull request for ${ctx.task.branch ?? "this task"}`);
  if (pull.state !== "open") return ghSkipped(closedMessage(pull), { context: pullContext(pull) });
  const cycle = ctx.state.cycle;
  const byThread = addressedThreads(ctx, cycle);
  if (byThread.size === 0)
    return ghSkipped("no PR thread was addressed this cycle", { context: pullContext(pull) });

  const threads = new Map((await client.listReviewThreads(pull.number)).map((t) => [t.id, t] as const));
  let replied = 0;
  let resolved = 0;
  const failures: string[] = [];
  for (const [threadId, disposition] of byThread) {
    const thread = threads.get(threadId);
    const key = replyMarkerKey(
      pull.number,
      threadId,
      disposition.status === "refuted" ? "refuted" : cycle,
      ctx.task.id,
    );
    if (!thread || (await deps.store.getMarker(key)) !== null) continue;
    const command = thread.authorIsBot ? botCommand(deps, thread.author) : undefined;
    try {
      const r = await answer(
        client,
        pull.number,
        thread,
        command ? { ...disposition, command } : disposition,
        deps,
        key,
      );
      replied += r.replied ? 1 : 0;
      // The dangerous window: the reply is on GitHub, the marker is not in the store yet.
      if (r.replied) crashPoint("reply-posted");
      resolved += r.resolved ? 1 : 0;
      await deps.store.setMarkerOnce(
        key,
        { status: disposition.status, sha: disposition.sha ?? null },
        deps.clock.now(),
      );
    } catch (e) {
      failures.push(`${threadId}: ${errorMessage(e)}`);
    }
  }
  return recordReplies(pull, cycle, { replied, resolved, failures }, deps, ctx);
}

/** The `github.replied` event and the stage's result: partial when some threads failed. */
async function recordReplies(
  pull: PullRequest,
  cycle: number,
  counts: { replied: number; resolved: number; failures: string[] },
  deps: GithubStageDeps,
  ctx: StageContext,
): Promise<StageResult> {
  const { replied, resolved, failures } = counts;
  const summary = `PR #${pull.number}: ${replied} repl${replied === 1 ? "y" : "ies"}, ${resolved} thread${resolved === 1 ? "" : "s"} resolved`;
  await deps.store.appendEvents(
    [
      {
        taskId: ctx.task.id,
        runId: ctx.runId,
        type: "github.replied",
        data: { pr: pull.number, cycle, replied, resolved, failed: failures },
      },
    ],
    deps.clock.now(),
  );
  if (failures.length === 0) return ghSuccess(summary, { type: "none" }, { context: pullContext(pull) });
  const reason = `${failures.length} thread${failures.length === 1 ? "" : "s"} not answered: ${failures.join("; ")}`;
  return replied > 0 || resolved > 0 ? ghPartial(summary, reason) : ghFail(reason);
}

/** PR threads whose finding this cycle settled (fixed, refuted, …), by thread id. */
function addressedThreads(ctx: StageContext, cycle: number): Map<string, Disposition> {
  const byThread = new Map<string, Disposition>();
  for (const f of ctx.registry.all()) {
    const d = dispositionOf(f, cycle);
    if (!d) continue;
    for (const s of f.sources) if (s.source.startsWith("pr:")) byThread.set(s.source.slice(3), d);
  }
  return byThread;
}

/** The resolve or re-review command configured for a bot (`bots { <login> command=… }`), if any. */
function botCommand(deps: GithubStageDeps, login: string | null): string | undefined {
  if (login === null) return undefined;
  const settings = deps.config.botSettings ?? {};
  return settings[login.toLowerCase()]?.command ?? settings[login]?.command;
}

function answer(
  client: GithubClient,
  pr: number,
  thread: ReviewThread,
  d: Disposition,
  deps: GithubStageDeps,
  key: string,
) {
  return respondToThread(client, pr, thread, d, {
    resolveHumanThreads: deps.config.resolveHumanThreads,
    key,
  });
}
