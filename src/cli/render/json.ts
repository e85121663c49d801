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

/**
 * Tasks per store query when `status` formats its table from summaries (a store that keeps no
 * lines), or prints JSON to a terminal.
 */
export const STATUS_PAGE = 5000;
/**
 * Tasks per store query when streaming `status --json` to a pipe: about 400 KiB of bytes, outside
 * V8's heap (TaskJsonPage.json), so 100,000 tasks are 100 queries and 100 writes. The table pages
 * by it too when the store keeps its lines (Store.listTaskLines), and so do the pages it formats
 * in their place.
 */
export const STATUS_JSON_PAGE = 1000;

/**
 * Tasks per page of `status --json` from `store`: PostgreSQL's pages are larger (4 MiB), since
 * each costs a round trip to the server and the server's start of a statement, while it sends the
 * rows as fast as the client reads them (100,000 tasks: 1,000 a page 0.33 s, 10,000 0.24 s).
 */
export const statusJsonPage = (store: { kind: "sqlite" | "postgres" }): number =>
  store.kind === "postgres" ? 10 * STATUS_JSON_PAGE : STATUS_JSON_PAGE;
/**
 * `status --json` for a script or pipe: a compact JSON array written page by page as the store
 * writes them (`nextPage(afterSeq)` → the next `pageSize` tasks as UTF-8 JSON text, see
 * `Store.listTaskJson`), so memory and time to first byte do not grow with the number of tasks.
 * `write` (Io.outPage) gets each page, with the comma before it, and the page's `tokenFree`. The
 * next page is read from the store while the previous one is still being written, and written
 * only after it, so at most two pages are held at once; a page written is given back to the store
 * (TaskJsonPage.release) for a later one.
 * The same values as `JSON.stringify(tasks.map(taskJson))`.
 */
export async function writeTaskJsonStream(
  write: (pieces: readonly (string | Uint8Array)[], tokenFree: boolean) => void | Promise<void>,
  nextPage: (afterSeq: number | undefined) => Promise<TaskJsonPage>,
  pageSize = STATUS_JSON_PAGE,
): Promise<void> {
  let writing = write(["["], true);
  let first = true;
  let after: number | undefined;
  let held: TaskJsonPage | null = null;
  for (;;) {
    const page = await nextPage(after);
    await writing;
    held?.release?.();
    held = page;
    if (page.count > 0) {
      writing = write(first ? [page.json] : [",", page.json], page.tokenFree);
      first = false;
    }
    if (page.lastSeq === null || page.count < pageSize) break;
    after = page.lastSeq;
  }
  await writing;
  held?.release?.();
  await write(["]\n"], true);
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
