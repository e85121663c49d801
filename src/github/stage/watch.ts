import type { GithubConfig } from "../../config/types.js";
import type { Store } from "../../store/store.js";
import type { Clock } from "../../util/clock.js";
import { writeAccessFrom } from "../authors.js";
import { fetchFeedback, filterFeedback } from "../feedback.js";
import { alreadyAnswered } from "../thread-reply.js";
import type { GithubClient } from "../types.js";
import type { GitRemote } from "./remote.js";

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
  start: { pr: number; head: string; threads: number }[];
  /** One line per PR left alone, and why. */
  skipped: string[];
}

/**
 * One poll of `fixpoint pr watch`: the open PRs with the configured label whose allowed,
 * unresolved threads have feedback fixpoint has not answered yet. A PR is started at most once
 * per head SHA (a store marker): after a rework pushes, only feedback on the new head counts.
 */
export async function pollPulls(deps: WatchDeps): Promise<WatchPoll> {
  const { client, config } = deps;
  const out: WatchPoll = { start: [], skipped: [] };
  for (const pull of await client.listOpenPullsWithLabel(config.label)) {
    const head = await deps.remote.remoteHead(deps.root, pull.head);
    if (head === null) {
      out.skipped.push(`#${pull.number}: branch ${pull.head} is not on origin`);
      continue;
    }
    if ((await deps.store.getMarker(watchMarkerKey(pull.number, head))) !== null) {
      out.skipped.push(`#${pull.number}: already reworked at ${head.slice(0, 12)}`);
      continue;
    }
    const raw = await fetchFeedback(client, pull.number, {
      timeoutMs: config.commentTimeoutMs,
      clock: deps.clock,
    });
    const { feedback } = await filterFeedback(raw, {
      allowAuthors: config.allowAuthors,
      bots: config.bots,
      hasWriteAccess: writeAccessFrom(client),
    });
    const answered = new Set(raw.threads.filter(alreadyAnswered).map((t) => t.id));
    const fresh = feedback.threads.filter(
      (t) => !t.isResolved && t.comments.length > 0 && !answered.has(t.id),
    );
    if (fresh.length === 0) {
      out.skipped.push(
        `#${pull.number}: no new feedback${raw.partialReason ? ` (${raw.partialReason})` : ""}`,
      );
      continue;
    }
    if (
      await deps.store.setMarkerOnce(
        watchMarkerKey(pull.number, head),
        { threads: fresh.length },
        deps.clock.now(),
      )
    ) {
      out.start.push({ pr: pull.number, head, threads: fresh.length });
    }
  }
  return out;
}
