import type { TaskJsonPage } from "../../domain/store.js";
import type { Finding, Run, StageExecution, TaskEvent, TaskSpend, TaskSummary } from "../../domain/types.js";

/**
 * The documented JSON shapes of the read commands (docs/cli.md). Keys are stable; new keys may be
 * added, existing ones are never renamed.
 */
/** A task as `status --json` lists it: one object literal per task, no spreads (10,000 at a time). */
export function taskJson(t: Omit<TaskSummary, "costUsd" | "tokens"> & Partial<TaskSpend>) {
  return {
    id: t.id,
    type: t.type,
    title: t.title,
    status: t.status,
    final_verdict: t.finalVerdict,
    reason: t.reason,
    cycle: t.cycle,
    max_cycles: t.maxCycles,
    priority: t.priority,
    current_stage: t.currentStage,
    workflow: t.workflow,
    base_branch: t.baseBranch,
    branch: t.branch,
    worktree: t.worktreePath,
    parent_id: t.parentId,
    created_at: new Date(t.createdAt).toISOString(),
    updated_at: new Date(t.updatedAt).toISOString(),
    cost_usd: t.costUsd ?? 0,
    tokens: t.tokens ?? 0,
  };
}

/** Tasks per store query when `status` prints its table, or JSON to a terminal. */
export const STATUS_PAGE = 5000;
/**
 * Tasks per store query when streaming `status --json` to a pipe: about 100 KiB of text, below
 * V8's large-object size, so each page is a young string that dies before the next one instead
 * of a 2 MiB allocation (measured at 100,000 tasks: 20–30 ms less system time than 5,000).
 */
export const STATUS_JSON_PAGE = 250;
/**
 * `status --json` for a script or pipe: a compact JSON array written page by page as the store
 * writes them (`nextPage(afterSeq)` → the next STATUS_JSON_PAGE tasks as JSON text, see
 * `Store.listTaskJson`), so memory and time to first byte do not grow with the number of tasks.
 * `out` gets each page's `tokenFree` with its text.
 * The same values as `JSON.stringify(tasks.map(taskJson))`.
 *
 * `drained` (Io.drained) is awaited before each next page: a pipe takes 64 KiB at a time, so
 * without it all of 100,000 tasks (40 MiB) would wait in memory for the reader, and the garbage
 * collector would walk it all.
 */
export async function writeTaskJsonStream(
  out: (text: string, tokenFree?: boolean) => void,
  nextPage: (afterSeq: number | undefined) => Promise<TaskJsonPage>,
  drained: () => Promise<void> = async () => undefined,
): Promise<void> {
  out("[");
  let first = true;
  let after: number | undefined;
  for (;;) {
    const page = await nextPage(after);
    if (page.count > 0) {
      // The separator apart: `,${json}` would make V8 copy the page once more to scan it.
      if (!first) out(",");
      out(page.json, page.tokenFree);
      first = false;
    }
    if (page.lastSeq === null || page.count < STATUS_JSON_PAGE) break;
    after = page.lastSeq;
    await drained();
  }
  out("]\n");
}

export function runJson(r: Run) {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    final_verdict: r.finalVerdict,
    reason: r.reason,
    started_at: new Date(r.startedAt).toISOString(),
    ended_at: r.endedAt ? new Date(r.endedAt).toISOString() : null,
    stored_review_issues: r.meta.lastReviewIssues?.length ?? 0,
  };
}

export function stageJson(s: StageExecution) {
  return {
    run_id: s.runId,
    stage: s.stageId,
    kind: s.kind,
    cycle: s.cycle,
    visit: s.visit,
    outcome: s.outcome,
    verdict: s.verdict,
    failure_class: s.failureClass,
    failure_reason: s.failureReason,
    summary: s.summary,
    started_at: new Date(s.startedAt).toISOString(),
    duration_ms: s.endedAt - s.startedAt,
    tokens: {
      input: s.usage.input,
      output: s.usage.output,
      cache_read: s.usage.cacheRead,
      cache_write: s.usage.cacheWrite,
    },
    cost_usd: s.costUsd,
    head_before: s.headBefore,
    head_after: s.headAfter,
    session_id: s.sessionId,
    attempts: s.attempts,
  };
}

export function findingJson(f: Finding) {
  return {
    id: f.id,
    severity: f.severity,
    status: f.status,
    category: f.category,
    title: f.title,
    body: f.body,
    file: f.file,
    line_start: f.lineStart,
    line_end: f.lineEnd,
    suggested_fix: f.suggestedFix,
    sources: f.sources,
    first_cycle: f.firstCycle,
    last_cycle: f.lastCycle,
    times_reopened: f.timesReopened,
    note: f.note,
    fingerprint: f.fingerprint,
    attempts: f.attempts.map((a) => ({
      cycle: a.cycle,
      status: a.status,
      justification: a.justification,
      commit: a.commitSha,
      rejection: a.rejection ?? null,
    })),
  };
}

export function eventJson(e: TaskEvent) {
  return { id: e.id, run_id: e.runId, ts: new Date(e.ts).toISOString(), type: e.type, data: e.data };
}
