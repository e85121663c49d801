/** SQL text and parameters for everything but tasks: runs, stages, findings, events, checkpoints. */

import type { RunPatch } from "../../domain/store.js";
import type { Finding, NewStageExecution, NewTaskEvent } from "../../domain/types.js";
import type { Params } from "./task-sql.js";

export const INSERT_RUN = `
INSERT INTO runs (task_id, kind, status, started_at, meta)
VALUES (@taskId, @kind, 'running', @now, @meta)
RETURNING *`;

export function runPatchSql(patch: RunPatch): { set: string; params: Params } {
  const sets: string[] = [];
  const params: Params = {};
  const add = (column: string, key: string, value: string | number | null | undefined): void => {
    if (value === undefined) return;
    sets.push(`${column} = @${key}`);
    params[key] = value;
  };
  add("status", "status", patch.status);
  add("final_verdict", "finalVerdict", patch.finalVerdict);
  add("reason", "reason", patch.reason);
  add("ended_at", "endedAt", patch.endedAt);
  add("meta", "meta", patch.meta === undefined ? undefined : JSON.stringify(patch.meta));
  return { set: sets.join(", "), params };
}

export const INSERT_STAGE = `
INSERT INTO stage_executions (run_id, task_id, stage_id, kind, visit, cycle, outcome, failure_class,
  failure_reason, verdict, started_at, ended_at, input_tokens, output_tokens, cache_read_tokens,
  cache_write_tokens, cost_usd, head_before, head_after, session_id, summary, attempts)
VALUES (@runId, @taskId, @stageId, @kind, @visit, @cycle, @outcome, @failureClass,
  @failureReason, @verdict, @startedAt, @endedAt, @input, @output, @cacheRead,
  @cacheWrite, @costUsd, @headBefore, @headAfter, @sessionId, @summary, @attempts)`;

export function stageParams(s: NewStageExecution): Params {
  return {
    runId: s.runId,
    taskId: s.taskId,
    stageId: s.stageId,
    kind: s.kind,
    visit: s.visit,
    cycle: s.cycle,
    outcome: s.outcome,
    failureClass: s.failureClass,
    failureReason: s.failureReason,
    verdict: s.verdict,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    input: s.usage.input,
    output: s.usage.output,
    cacheRead: s.usage.cacheRead,
    cacheWrite: s.usage.cacheWrite,
    costUsd: s.costUsd,
    headBefore: s.headBefore,
    headAfter: s.headAfter,
    sessionId: s.sessionId,
    summary: s.summary,
    attempts: s.attempts,
  };
}

/**
 * A run's checkpoint replaces its previous one in place (migration 014: one row per run, only the
 * latest is ever read); `seq` counts the checkpoints the run has written.
 */
export const INSERT_CHECKPOINT = `
INSERT INTO checkpoints (run_id, seq, task_id, state, created_at)
VALUES (@runId, 1, @taskId, @state, @now)
ON CONFLICT (run_id) DO UPDATE SET seq = seq + 1, task_id = excluded.task_id, state = excluded.state,
  created_at = excluded.created_at`;

/** A full-row upsert: the registry owns the row and writes every field, createdAt included. */
export const UPSERT_FINDING = `
INSERT INTO findings (task_id, id, fingerprint, severity, category, title, body, file, line_start,
  line_end, suggested_fix, sources, status, first_cycle, last_cycle, times_reopened, attempts, note,
  created_at, updated_at)
VALUES (@taskId, @id, @fingerprint, @severity, @category, @title, @body, @file, @lineStart,
  @lineEnd, @suggestedFix, @sources, @status, @firstCycle, @lastCycle, @timesReopened, @attempts, @note,
  @createdAt, @updatedAt)
ON CONFLICT (task_id, id) DO UPDATE SET
  fingerprint = excluded.fingerprint, severity = excluded.severity, category = excluded.category,
  title = excluded.title, body = excluded.body, file = excluded.file, line_start = excluded.line_start,
  line_end = excluded.line_end, suggested_fix = excluded.suggested_fix, sources = excluded.sources,
  status = excluded.status, first_cycle = excluded.first_cycle, last_cycle = excluded.last_cycle,
  times_reopened = excluded.times_reopened, attempts = excluded.attempts, note = excluded.note,
  created_at = excluded.created_at, updated_at = excluded.updated_at`;

/** `taskId` is the store call's: a finding is filed under the task it is saved for. */
export function findingParams(taskId: string, f: Finding): Params {
  return {
    taskId,
    id: f.id,
    fingerprint: f.fingerprint,
    severity: f.severity,
    category: f.category,
    title: f.title,
    body: f.body,
    file: f.file,
    lineStart: f.lineStart,
    lineEnd: f.lineEnd,
    suggestedFix: f.suggestedFix,
    sources: JSON.stringify(f.sources),
    status: f.status,
    firstCycle: f.firstCycle,
    lastCycle: f.lastCycle,
    timesReopened: f.timesReopened,
    attempts: JSON.stringify(f.attempts),
    note: f.note,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

export const INSERT_EVENT = `
INSERT INTO events (task_id, run_id, ts, type, data) VALUES (@taskId, @runId, @ts, @type, @data)`;

export function eventParams(e: NewTaskEvent, now: number): Params {
  return { taskId: e.taskId, runId: e.runId, ts: e.ts ?? now, type: e.type, data: JSON.stringify(e.data) };
}
