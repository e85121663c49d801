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

const str = (v: string | null): string => (v === null ? "null" : JSON.stringify(v));
const numOrNull = (v: number): string => JSON.stringify(v);

/**
 * `JSON.stringify(taskJson(t))`, written out by hand: no intermediate object, one string per task,
 * which is what lets `status --json` stream 100,000 tasks. The property test in json.test.ts keeps
 * the two identical.
 */
export function taskJsonText(t: TaskSummary): string {
  return (
    `{"id":${str(t.id)},"type":${str(t.type)},"title":${str(t.title)},"status":${str(t.status)},` +
    `"final_verdict":${str(t.finalVerdict)},"reason":${str(t.reason)},"cycle":${numOrNull(t.cycle)},` +
    `"max_cycles":${numOrNull(t.maxCycles)},"priority":${numOrNull(t.priority)},"current_stage":${str(t.currentStage)},"workflow":${str(t.workflow)},` +
    `"base_branch":${str(t.baseBranch)},"branch":${str(t.branch)},"worktree":${str(t.worktreePath)},` +
    `"parent_id":${str(t.parentId)},"created_at":"${new Date(t.createdAt).toISOString()}",` +
    `"updated_at":"${new Date(t.updatedAt).toISOString()}","cost_usd":${numOrNull(t.costUsd ?? 0)},` +
    `"tokens":${numOrNull(t.tokens ?? 0)}}`
  );
}

/** Tasks per store query when streaming `status --json`. */
export const STATUS_PAGE = 5000;
/** Output is written in pieces of about this many characters. */
const CHUNK = 1 << 20;

/**
 * `status --json` for a script or pipe: a compact JSON array written page by page as the store
 * returns them (`nextPage(afterSeq)` → the tasks after that seq, at most STATUS_PAGE), so memory
 * and time to first byte do not grow with the number of tasks. Byte for byte what
 * `JSON.stringify(tasks.map(taskJson))` would print.
 */
export async function writeTaskJsonStream(
  out: (text: string) => void,
  nextPage: (afterSeq: number | undefined) => Promise<TaskSummary[]>,
): Promise<void> {
  let buf = "[";
  let first = true;
  let after: number | undefined;
  for (;;) {
    const page = await nextPage(after);
    for (const t of page) {
      buf += first ? taskJsonText(t) : `,${taskJsonText(t)}`;
      first = false;
      if (buf.length >= CHUNK) {
        out(buf);
        buf = "";
      }
    }
    const last = page.at(-1);
    if (!last || page.length < STATUS_PAGE) break;
    after = last.seq;
  }
  out(`${buf}]\n`);
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
