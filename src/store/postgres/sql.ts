/**
 * SQL text and parameters for the PostgreSQL store. Statements are built from the *shape* of a
 * patch or filter (which keys are set), never from values: every value is a `$n` parameter.
 */
import type {
  FindingFilter,
  Lease,
  ReviewerActivityFilter,
  TaskFilter,
  TaskPatch,
} from "../../domain/store.js";
import type { Json, NewTask } from "../../domain/types.js";
import { TASK_SELECT } from "../sqlite/rows.js";
import { holdingSql } from "../task-filter.js";
import { patchColumns } from "../task-patch.js";
import pg from "./pg-driver.js";

export type PgValue = string | number | boolean | null | readonly string[];

/** Collects positional parameters: `p.add(v)` returns the `$n` to put in the statement. */
export class Params {
  readonly values: PgValue[] = [];
  add(v: PgValue): string {
    // PostgreSQL text cannot hold NUL; agent output occasionally does. It reads back as U+FFFD.
    this.values.push(typeof v === "string" && v.includes("\0") ? v.replaceAll("\0", "\uFFFD") : v);
    return `$${this.values.length}`;
  }
  /** A JSON value for a jsonb column. */
  json(v: Json | object): string {
    return `${this.add(jsonText(v))}::jsonb`;
  }
}

/**
 * Params written into the statement as literals: for COPY, which takes no parameters. Strings are
 * node-postgres' escapeLiteral (an escape string `E'…'` when they hold a backslash), which reads
 * the same whatever standard_conforming_strings says, NUL made U+FFFD as Params does; numbers
 * must be finite.
 */
export class InlineValues extends Params {
  override add(v: PgValue): string {
    if (v === null) return "NULL";
    if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new Error(`not a finite number for a statement: ${v}`);
      return `(${String(v)})`;
    }
    if (typeof v === "string") return escapeString(v);
    return `(ARRAY[${v.map(escapeString).join(",")}]::text[])`;
  }
}

const escapeString = (v: string): string => pg.escapeLiteral(v.replaceAll("\0", "\uFFFD"));

/**
 * JSON text jsonb accepts: it refuses the escape `\u0000` (a NUL inside a string), which
 * JSON.stringify writes; it is stored as U+FFFD instead. Only an escape preceded by an even
 * number of backslashes is one.
 */
export function jsonText(v: Json | object): string {
  const text = JSON.stringify(v);
  return text.includes("\\u0000") ? text.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd") : text;
}

/** The server's clock in epoch milliseconds, read once per statement. */
export const DB_NOW_MS = "(extract(epoch from statement_timestamp()) * 1000)::bigint";

export function insertTaskSql(
  input: NewTask,
  id: string,
  seq: number,
  now: number,
): { sql: string; params: Params } {
  const p = new Params();
  const sql = `
INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, branch, worktree_path,
  status, max_cycles, cycle, priority, notes, budget, agents, meta, parent_id, created_at, updated_at)
VALUES (${p.add(id)}, ${p.add(seq)}, ${p.add(input.type)}, ${p.add(input.title)}, ${p.add(input.prompt)},
  ${p.add(input.workflow)}, ${p.add(input.repo)}, ${p.add(input.baseBranch)}, ${p.add(input.branch ?? null)},
  ${p.add(input.worktreePath ?? null)}, 'queued', ${p.add(input.maxCycles)}, 0,
  ${p.add(input.priority ?? 0)}, ${p.add(input.notes ?? null)}, ${p.json(input.budget ?? {})},
  ${p.json(input.agents ?? {})}, ${p.json(input.meta ?? {})}, ${p.add(input.parentId ?? null)}, ${p.add(now)}, ${p.add(now)})
RETURNING ${TASK_SELECT}`;
  return { sql, params: p };
}

/**
 * NOTIFYs `fixpoint_work` when the row an UPDATE wrote is a queued task no worker holds, waking
 * idle workers (`waitForWork`); for a `RETURNING` list. Inserts NOTIFY through a trigger
 * (migration 007); updates say so in the statement, only those that may queue a task.
 */
export const NOTIFY_IF_QUEUED =
  "CASE WHEN status = 'queued' AND worker_id IS NULL THEN pg_notify('fixpoint_work', id) END";

/**
 * The claimed task as one JSON array of TASK_SELECT's values (toTask's cells, once parsed): the
 * driver then reads one column per claim instead of describing and converting two dozen (a
 * claiming worker's CPU per claim fell from 0.74 to 0.61 ms in bench/pg-claims.ts). Numbers come
 * back as JSON numbers (every bigint column here is a count or a time in ms, well inside 2^53)
 * and JSONB columns as their objects, as the driver's own parsers give them.
 */
export const CLAIMED_ROW = `json_build_array(${TASK_SELECT})::text AS task`;

/** Statuses of the tasks a claim looks at; the generated column `live` is true for them. */
const LIVE_STATUSES: readonly string[] = ["queued", "running"];

/**
 * One statement: pick the first live task (highest priority, then oldest) that is queued or whose lease expired, lock it with
 * SKIP LOCKED (a row another claimer is taking is passed over, never waited for), and take it.
 * `nowSql` is the clock leases are measured on (the server's, or the caller's in tests).
 * The claim changes no indexed column (`live` stays true), so it is a HOT update (migration 007).
 */
export function claimSql(
  workerId: string,
  leaseMs: number,
  callerNow: number,
  clock: "database" | "caller",
  ids: readonly string[] | undefined,
  done?: { lease: Lease; patch: TaskPatch },
): { sql: string; params: Params } {
  const p = new Params();
  // Releasing the finished task in the same statement (`Store.releaseAndClaim`): a data-modifying
  // WITH runs once, to completion; the claim reads its row count so its RETURNING (the wake-up
  // NOTIFY of a task left queued) is evaluated, and never picks the task being released (the
  // statement's snapshot still shows it held, and one statement must not update a row twice).
  const release =
    done === undefined
      ? ""
      : `WITH released AS (
  UPDATE tasks SET ${patchSet(done.patch, callerNow, p)}, worker_id = NULL, lease_expires_at = NULL
  WHERE id = ${p.add(done.lease.taskId)} AND worker_id = ${p.add(done.lease.workerId)} AND lease_token = ${p.add(done.lease.token)}
  RETURNING ${NOTIFY_IF_QUEUED} AS woke)
`;
  const nowSql = clock === "database" ? DB_NOW_MS : `${p.add(callerNow)}::bigint`;
  const idFilter = ids === undefined ? "" : ` AND id = ANY(${p.add(ids)}::text[])`;
  const exclude = done === undefined ? "" : ` AND id <> ${p.add(done.lease.taskId)}`;
  const readReleased = done === undefined ? "" : " AND (SELECT count(*) FROM released) >= 0";
  const sql = `
${release}UPDATE tasks SET status = 'running', worker_id = ${p.add(workerId)},
  lease_expires_at = ${nowSql} + ${p.add(Math.max(0, Math.floor(leaseMs)))}::bigint,
  lease_token = lease_token + 1, updated_at = ${p.add(callerNow)}
WHERE id = (
  SELECT id FROM tasks
  WHERE live AND (status = 'queued' OR lease_expires_at < ${nowSql})${idFilter}${exclude}
  ORDER BY priority DESC, seq LIMIT 1 FOR UPDATE SKIP LOCKED)${readReleased}
RETURNING ${CLAIMED_ROW}`;
  return { sql, params: p };
}

/** `col = $n, …, updated_at = $m` for the keys set in the patch (undefined: leave; null: clear). */
export function patchSet(patch: TaskPatch, now: number, p: Params): string {
  const sets: string[] = [];
  for (const c of patchColumns(patch)) {
    sets.push(`${c.column} = ${c.json ? p.json(c.value) : p.add(c.value)}`);
  }
  sets.push(`updated_at = ${p.add(now)}`);
  return sets.join(", ");
}

/** WHERE … ORDER BY … LIMIT for a filter. */
export function filterClause(filter: TaskFilter, forCount: boolean, p: Params): string {
  const where: string[] = [];
  if (filter.statuses !== undefined) {
    // Only queued and running tasks asked for: `live` lets the claim index find them.
    if (filter.statuses.length > 0 && filter.statuses.every((st) => LIVE_STATUSES.includes(st)))
      where.push("live");
    where.push(`status = ANY(${p.add(filter.statuses)}::text[])`);
  }
  if (filter.excludeStatuses !== undefined && filter.excludeStatuses.length > 0)
    where.push(`status <> ALL(${p.add(filter.excludeStatuses)}::text[])`);
  if (filter.ids !== undefined) where.push(`id = ANY(${p.add(filter.ids)}::text[])`);
  if (filter.idPrefix !== undefined) where.push(`starts_with(id, ${p.add(filter.idPrefix)})`);
  if (filter.branch !== undefined) where.push(`branch = ${p.add(filter.branch)}`);
  if (filter.parentId !== undefined) where.push(`parent_id = ${p.add(filter.parentId)}`);
  if (filter.holding !== undefined) where.push(holdingSql(filter.holding));
  // Keyset paging: after `afterSeq` in the listing order (smaller seqs when newest first).
  if (filter.afterSeq !== undefined)
    where.push(`seq ${filter.newestFirst === true ? "<" : ">"} ${p.add(filter.afterSeq)}`);
  if (filter.updatedSince !== undefined) where.push(`updated_at >= ${p.add(filter.updatedSince)}`);
  if (filter.beforeSeq !== undefined) where.push(`seq < ${p.add(filter.beforeSeq)}`);
  let clause = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
  if (!forCount) {
    clause += filter.newestFirst === true ? " ORDER BY seq DESC" : " ORDER BY seq";
    if (filter.limit !== undefined) clause += ` LIMIT ${p.add(Math.max(0, Math.floor(filter.limit)))}`;
  }
  return clause;
}

/**
 * The dashboard's findings across tasks, newest first (`ord` is first-insertion order, as
 * SQLite's rowid), filtered and paged. `reviewer` matches a source or an author exactly, `file`
 * a substring of the path.
 */
export function findingSearchSql(filter: FindingFilter): { sql: string; params: Params } {
  const p = new Params();
  const where: string[] = [];
  if (filter.taskId !== undefined) where.push(`task_id = ${p.add(filter.taskId)}`);
  if (filter.statuses !== undefined) where.push(`status = ANY(${p.add(filter.statuses)}::text[])`);
  if (filter.severities !== undefined) where.push(`severity = ANY(${p.add(filter.severities)}::text[])`);
  if (filter.reviewer !== undefined) {
    const reviewer = `${p.add(filter.reviewer)}::text`;
    where.push(
      // CASE, not AND: PostgreSQL may evaluate AND's operands in any order.
      `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(sources) = 'array' THEN sources ELSE '[]'::jsonb END) s
        WHERE s->>'source' = ${reviewer} OR s->>'author' = ${reviewer})`,
    );
  }
  if (filter.file !== undefined) where.push(`strpos(file, ${p.add(filter.file)}::text) > 0`);
  const clause = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
  const limit = p.add(Math.max(0, Math.floor(filter.limit)));
  const offset = p.add(Math.max(0, Math.floor(filter.offset ?? 0)));
  return {
    sql: `SELECT * FROM findings${clause} ORDER BY ord DESC LIMIT ${limit} OFFSET ${offset}`,
    params: p,
  };
}

/**
 * Count, spend and stage time of the tasks a filter selects (its order and limit dropped), in one
 * statement so they come from one snapshot: a row per status, and one (`whole` 1) for all of
 * them, from one pass over the tasks (GROUPING SETS), each row with the stage time. The tasks
 * read once, not once per figure: 100,000 tasks took 162 ms as five scans of one CTE, 55 as this.
 */
export function taskTotalsSql(filter: TaskFilter): { sql: string; params: Params } {
  const p = new Params();
  const grouped = filterClause(filter, true, p);
  const joined = filterClause(filter, true, p);
  const sql = `SELECT status, GROUPING(status) AS whole, COUNT(*) AS n, COALESCE(SUM(cost_usd), 0) AS cost_usd,
  COALESCE(SUM(tokens), 0) AS tokens,
  (SELECT COALESCE(SUM(s.ended_at - s.started_at), 0)
    FROM (SELECT id FROM tasks${joined}) t JOIN stage_executions s ON s.task_id = t.id) AS agent_ms
FROM tasks${grouped} GROUP BY GROUPING SETS ((status), ())`;
  return { sql, params: p };
}

export const UPSERT_FINDING_HEAD = `
INSERT INTO findings (task_id, id, fingerprint, severity, category, title, body, file, line_start,
  line_end, suggested_fix, sources, status, first_cycle, last_cycle, times_reopened, attempts, note,
  created_at, updated_at)`;
export const UPSERT_FINDING_TAIL = `
ON CONFLICT (task_id, id) DO UPDATE SET
  fingerprint = excluded.fingerprint, severity = excluded.severity, category = excluded.category,
  title = excluded.title, body = excluded.body, file = excluded.file, line_start = excluded.line_start,
  line_end = excluded.line_end, suggested_fix = excluded.suggested_fix, sources = excluded.sources,
  status = excluded.status, first_cycle = excluded.first_cycle, last_cycle = excluded.last_cycle,
  times_reopened = excluded.times_reopened, attempts = excluded.attempts, note = excluded.note,
  created_at = excluded.created_at, updated_at = excluded.updated_at`;

/** Params holding `values`, in order ($1, $2, …). */
export function withValues(...values: (string | number)[]): Params {
  const p = new Params();
  for (const v of values) p.add(v);
  return p;
}

/**
 * `listReviewerActivity`'s two reads (SQLite's reviewerActivitySql): both statements number
 * their parameters alike, so one Params serves the two.
 */
export function reviewerActivitySql(filter: ReviewerActivityFilter): {
  findings: string;
  reviews: string;
  params: Params;
} {
  const p = new Params();
  const findings: string[] = [];
  const reviews = ["kind = 'review'"];
  if (filter.taskId !== undefined) {
    const id = p.add(filter.taskId);
    findings.push(`task_id = ${id}`);
    reviews.push(`task_id = ${id}`);
  }
  if (filter.since !== undefined) {
    const since = p.add(filter.since);
    findings.push(`created_at >= ${since}`);
    reviews.push(`started_at >= ${since}`);
  }
  const where = (c: string[]) => (c.length > 0 ? ` WHERE ${c.join(" AND ")}` : "");
  return {
    findings: `SELECT sources, status, note, created_at FROM findings${where(findings)}`,
    reviews: `SELECT task_id, stage_id, cost_usd, started_at FROM stage_executions${where(reviews)} ORDER BY id`,
    params: p,
  };
}
