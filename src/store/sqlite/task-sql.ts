/**
 * SQL text and parameters for the tasks table. Statements are built from the *shape* of a patch
 * or filter (which keys are set), never from values, so each shape compiles once and is cached.
 */

import type { TaskFilter, TaskPatch } from "../../domain/store.js";
import type { Json, NewTask } from "../../domain/types.js";
import { holdingSql } from "../task-filter.js";
import { patchColumns } from "../task-patch.js";
import { TASK_SELECT } from "./rows.js";

export type Params = Record<string, string | number | null>;

const json = (v: Json | object | undefined, fallback: string): string =>
  v === undefined ? fallback : JSON.stringify(v);

export const INSERT_TASK = `
INSERT INTO tasks (id, seq, type, title, prompt, workflow, repo, base_branch, branch, worktree_path,
  status, max_cycles, cycle, priority, notes, budget, agents, meta, parent_id, created_at, updated_at)
VALUES (@id, @seq, @type, @title, @prompt, @workflow, @repo, @baseBranch, @branch, @worktreePath,
  'queued', @maxCycles, 0, @priority, @notes, @budget, @agents, @meta, @parentId, @now, @now)
RETURNING ${TASK_SELECT}`;

export function insertTaskParams(input: NewTask, id: string, seq: number, now: number): Params {
  return {
    id,
    seq,
    type: input.type,
    title: input.title,
    prompt: input.prompt,
    workflow: input.workflow,
    repo: input.repo,
    baseBranch: input.baseBranch,
    branch: input.branch ?? null,
    worktreePath: input.worktreePath ?? null,
    maxCycles: input.maxCycles,
    priority: input.priority ?? 0,
    notes: input.notes ?? null,
    budget: json(input.budget, "{}"),
    agents: json(input.agents, "{}"),
    meta: json(input.meta, "{}"),
    parentId: input.parentId ?? null,
    now,
  };
}

// Claims: the first queued task (highest priority, then oldest), or a running one whose lease
// expired. One UPDATE, so the pick and the take cannot be split by another worker. The two
// candidates are looked up apart, each through its own partial index (migration 014): the first
// queued one is the first entry of `tasks_queue` (priority DESC, seq), and expired leases are a
// range of `tasks_leases`. A combined `status IN (…)` would sort every live task on each claim:
// quadratic over a 10,000-task queue. INDEXED BY, because without statistics the planner prefers
// (status, seq) and sorts every queued task for each claim (measured: 5× slower at 5,000).
const CLAIM = (idFilter: string): string => `
UPDATE tasks SET status = 'running', worker_id = @workerId, lease_expires_at = @leaseUntil,
  lease_token = lease_token + 1, updated_at = @now
WHERE id = (
  SELECT id FROM (
    SELECT * FROM (
      SELECT id, priority, seq FROM tasks INDEXED BY tasks_queue WHERE status = 'queued' AND id <> @exclude${idFilter}
      ORDER BY priority DESC, seq LIMIT 1)
    UNION ALL
    SELECT * FROM (
      SELECT id, priority, seq FROM tasks INDEXED BY tasks_leases
      WHERE status = 'running' AND lease_expires_at < @now AND id <> @exclude${idFilter}
      ORDER BY priority DESC, seq LIMIT 1)
  ) ORDER BY priority DESC, seq LIMIT 1)
RETURNING ${TASK_SELECT}`;
export const CLAIM_ANY = CLAIM("");
export const CLAIM_AMONG = CLAIM(" AND id IN (SELECT value FROM json_each(@ids))");

/**
 * `col = @p_key, …, updated_at = @now` for the keys set in the patch (undefined means "leave
 * as is"; null clears). Unknown keys are ignored. Parameters are prefixed so they never collide
 * with the statement's own (`@id`, `@now`, `@workerId`).
 */
export function patchSql(patch: TaskPatch): { set: string; params: Params } {
  const sets: string[] = [];
  const params: Params = {};
  for (const c of patchColumns(patch)) {
    sets.push(`${c.column} = @p_${c.key}`);
    params[`p_${c.key}`] = c.json ? JSON.stringify(c.value) : c.value;
  }
  sets.push("updated_at = @now");
  return { set: sets.join(", "), params };
}

/** WHERE … ORDER BY … LIMIT for a filter. Lists are bound as one JSON array each. */
/**
 * `bySeq`: filter by status without its index (`+status`), so a listing walks `seq` order (the
 * covering index of migration 006 for summaries) instead of collecting every match and sorting.
 */
/**
 * Ids starting with `prefix`: a range of the id index (up to the prefix with its last unit
 * raised, when that is a plain character), then the exact test.
 */
function idPrefixSql(prefix: string, params: Params): string {
  params.idPrefix = prefix;
  const exact = "id >= @idPrefix AND substr(id, 1, length(@idPrefix)) = @idPrefix";
  const last = prefix.charCodeAt(prefix.length - 1);
  if (Number.isNaN(last) || last >= 0xd7ff) return exact;
  params.idPrefixEnd = prefix.slice(0, -1) + String.fromCharCode(last + 1);
  return `${exact} AND id < @idPrefixEnd`;
}

export function filterSql(
  filter: TaskFilter,
  forCount: boolean,
  bySeq = false,
): { clause: string; params: Params } {
  const where: string[] = [];
  const params: Params = {};
  if (filter.statuses?.length === 1 && !bySeq) {
    // One status: a plain equality lets SQLite find its tasks through the totals index (019),
    // whose key starts with the status, and sort those by seq (listings of many use `bySeq`).
    where.push("status = @status");
    params.status = filter.statuses[0] ?? null;
  } else if (filter.statuses !== undefined) {
    where.push(`${bySeq ? "+" : ""}status IN (SELECT value FROM json_each(@statuses))`);
    params.statuses = JSON.stringify(filter.statuses);
  }
  if (filter.excludeStatuses?.length === 1) {
    where.push(`${bySeq ? "+" : ""}status <> @notStatus`);
    params.notStatus = filter.excludeStatuses[0] ?? null;
  } else if (filter.excludeStatuses !== undefined && filter.excludeStatuses.length > 1) {
    where.push(`${bySeq ? "+" : ""}status NOT IN (SELECT value FROM json_each(@notStatuses))`);
    params.notStatuses = JSON.stringify(filter.excludeStatuses);
  }
  if (filter.ids !== undefined) {
    where.push("id IN (SELECT value FROM json_each(@ids))");
    params.ids = JSON.stringify(filter.ids);
  }
  if (filter.idPrefix !== undefined) where.push(idPrefixSql(filter.idPrefix, params));
  if (filter.branch !== undefined) {
    where.push("branch = @branch");
    params.branch = filter.branch;
  }
  if (filter.parentId !== undefined) {
    where.push("parent_id = @parentId");
    params.parentId = filter.parentId;
  }
  if (filter.holding !== undefined) where.push(holdingSql(filter.holding));
  if (filter.afterSeq !== undefined) {
    where.push(filter.newestFirst === true ? "seq < @afterSeq" : "seq > @afterSeq");
    params.afterSeq = filter.afterSeq;
  }
  if (filter.updatedSince !== undefined) {
    where.push("updated_at >= @updatedSince");
    params.updatedSince = filter.updatedSince;
  }
  if (filter.beforeSeq !== undefined) {
    where.push("seq < @beforeSeq");
    params.beforeSeq = filter.beforeSeq;
  }
  let clause = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
  if (!forCount) {
    clause += filter.newestFirst === true ? " ORDER BY seq DESC" : " ORDER BY seq";
    if (filter.limit !== undefined) {
      clause += " LIMIT @limit";
      params.limit = Math.max(0, Math.floor(filter.limit));
    }
  }
  return { clause, params };
}
