import type { GithubConfig } from "../../config/types.js";
import type { Clock } from "../../domain/clock.js";
import type { GithubClient } from "../../domain/github.js";
import type { Store } from "../../domain/store.js";
import { writeAccessFrom } from "../authors.js";
import { fetchFeedback, filterFeedback } from "../feedback.js";
import { type AwaitMarker, awaitMarkerKey, parseAwaitMarker } from "./await-review.js";
import type { GitRemote } from "./remote.js";
import { judgeReviews, openThreads } from "./review-state.js";

export function watchMarkerKey(pr: number, headSha: string): string {
  return `gh-watch:${pr}:${headSha}`;
}

export interface WatchDeps {
  client: GithubClient;
  remote: GitRemote;
  store: Store;
  config: GithubConfig;
  root: string;
  clock: Clock;
}

export interface WatchPoll {
  /** PRs to rework now: new feedback on a head not reworked before. */
  /** PRs to rework now; `continuing` names a waiting task that is picked up again, and why. */
  start: { pr: number; head: string; threads: number; continuing?: string }[];
  /** One line per PR left alone and why, or whose waiting task is continued. */
  skipped: string[];
}

/**
 * One poll of `fixpoint pr watch`: the open PRs with the configured label whose allowed,
 * unresolved threads have feedback fixpoint has not answered yet. A PR is started at most once
 * per head SHA (a store marker): after a rework pushes, only feedback on the new head counts.
 * A rework task waiting at `await-review` (`wait-for-review`) is continued once the PR's
 * reviewers answered its head; when they asked for more, the next cycle follows in the same poll.
 */
export async function pollPulls(deps: WatchDeps): Promise<WatchPoll> {
  const out: WatchPoll = { start: [], skipped: [] };
  for (const pull of await deps.client.listOpenPullsWithLabel(deps.config.label)) {
    const head = await deps.remote.remoteHead(deps.root, pull.head);
    if (head === null) {
      out.skipped.push(`#${pull.number}: branch ${pull.head} is not on origin`);
      continue;
    }
    const waiting = await waitingTask(deps.store, pull.number);
    if (waiting) {
      await pollWaiting(deps, pull.number, head, waiting, out);
      continue;
    }
    if ((await deps.store.getMarker(watchMarkerKey(pull.number, head))) !== null) {
      out.skipped.push(`#${pull.number}: already reworked at ${head.slice(0, 12)}`);
      continue;
    }
    const { raw, feedback } = await readFeedback(deps, pull.number);
    const fresh = openThreads(feedback.threads, raw.threads);
    if (fresh.length === 0) {
      out.skipped.push(
        `#${pull.number}: no new feedback${raw.partialReason ? ` (${raw.partialReason})` : ""}`,
      );
      continue;
    }
    await startOnce(deps, pull.number, head, fresh.length, out);
  }
  return out;
}

/** The task waiting at `await-review` for this PR's reviewers, if one still is. */
async function waitingTask(store: Store, pr: number): Promise<AwaitMarker | null> {
  const marker = parseAwaitMarker(await store.getMarker(awaitMarkerKey(pr)));
  if (!marker) return null;
  const task = await store.getTask(marker.task);
  return task?.status === "needs_human" && task.currentStage === marker.stage ? marker : null;
}

/** Continue the waiting task once the reviewers answered; on "more changes" start the next cycle too. */
async function pollWaiting(deps: WatchDeps, pr: number, head: string, waiting: AwaitMarker, out: WatchPoll) {
  const { raw, feedback } = await readFeedback(deps, pr);
  const answer = judgeReviews(feedback, raw.threads, waiting.head);
  const at = waiting.head.slice(0, 12);
  if (answer.kind === "waiting") {
    out.skipped.push(`#${pr}: ${waiting.task} waits for the PR's reviewers (head ${at})`);
    return;
  }
  const said = answer.kind === "approved" ? "approved" : "asked for more changes";
  const threads = answer.kind === "changes" ? answer.threads.length : 0;
  out.start.push({
    pr,
    head,
    threads,
    continuing: `the PR's reviewers ${said} at ${at}; continuing ${waiting.task}`,
  });
  // The continued task ends saying so; the next cycle takes the new feedback, once per head.
  if (answer.kind === "changes") await startOnce(deps, pr, head, threads, out);
}

async function startOnce(deps: WatchDeps, pr: number, head: string, threads: number, out: WatchPoll) {
  if (await deps.store.setMarkerOnce(watchMarkerKey(pr, head), { threads }, deps.clock.now()))
    out.start.push({ pr, head, threads });
}

async function readFeedback(deps: WatchDeps, pr: number) {
  const raw = await fetchFeedback(deps.client, pr, {
    timeoutMs: deps.config.commentTimeoutMs,
    clock: deps.clock,
  });
  const { feedback } = await filterFeedback(raw, {
    allowAuthors: deps.config.allowAuthors,
    bots: deps.config.bots,
    hasWriteAccess: writeAccessFrom(deps.client),
  });
  return { raw, feedback };
}
