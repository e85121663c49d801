import type { StageExecution, Task, TaskEvent } from "../domain/types.js";

/**
 * A task's pull request as far as the store knows, without asking GitHub: opened or updated by
 * the `github` stages (`github.pr_opened` / `github.pr_updated` events), and found merged or
 * closed by a later `github` stage (its summary, written by `closedMessage` in
 * src/github/stage/pull-of-task.ts). The task page shows it; no network while rendering.
 */
export interface PullRequestState {
  number: number;
  state: "open" | "merged" | "closed" | "unknown";
  /** The PR's web address when an event recorded it. */
  url: string | null;
  /** When the store last learned it (epoch ms); null when only the task's metadata names it. */
  at: number | null;
}

const CLOSED = /\bpull request #(\d+) was (merged|closed)\b/;

export function pullRequestState(
  task: Pick<Task, "meta">,
  events: readonly Pick<TaskEvent, "type" | "data" | "ts">[],
  stages: readonly Pick<StageExecution, "kind" | "summary" | "endedAt">[],
): PullRequestState | null {
  let pr: PullRequestState | null =
    task.meta.prNumber === undefined
      ? null
      : { number: task.meta.prNumber, state: "unknown", url: null, at: null };
  const seen: { at: number; apply: (p: PullRequestState | null) => PullRequestState | null }[] = [];
  for (const e of events) {
    if (e.type !== "github.pr_opened" && e.type !== "github.pr_updated") continue;
    const data = e.data !== null && typeof e.data === "object" && !Array.isArray(e.data) ? e.data : {};
    const n = typeof data.pr === "number" ? data.pr : null;
    if (n === null) continue;
    // Only a web address goes into a link: the page must never render a `javascript:` href.
    const url = typeof data.url === "string" && /^https?:\/\//i.test(data.url) ? data.url : null;
    seen.push({ at: e.ts, apply: () => ({ number: n, state: "open", url, at: e.ts }) });
  }
  for (const s of stages) {
    const m = s.kind === "github" && s.summary ? CLOSED.exec(s.summary) : null;
    if (!m) continue;
    const n = Number(m[1]);
    const state = m[2] === "merged" ? "merged" : "closed";
    seen.push({
      at: s.endedAt,
      apply: (p) => ({ number: n, state, url: p?.number === n ? p.url : null, at: s.endedAt }),
    });
  }
  // Oldest first, so the newest fact wins; a stable sort keeps events before stages at equal times.
  for (const f of seen.sort((a, b) => a.at - b.at)) pr = f.apply(pr);
  return pr;
}
