import type {
  FindingFilter,
  ReviewerActivity,
  ReviewerActivityFilter,
  TaskFilter,
  TaskTotals,
} from "../../domain/store.js";
import type { TaskStatus } from "../../domain/types.js";
import { toReviewerFinding, toReviewStage } from "./rows.js";
import type { Statements } from "./statements.js";
import { filterSql, type Params } from "./task-sql.js";

/**
 * The dashboard's paged reads. Findings across tasks are read newest first by rowid, so a page
 * stops scanning once it has `limit` rows; lists are bound as one JSON array each.
 */
export function findingSearchSql(filter: FindingFilter): { sql: string; params: Params } {
  const where: string[] = [];
  const params: Params = {
    limit: Math.max(0, Math.floor(filter.limit)),
    offset: Math.max(0, Math.floor(filter.offset ?? 0)),
  };
  if (filter.taskId !== undefined) {
    where.push("task_id = @taskId");
    params.taskId = filter.taskId;
  }
  if (filter.statuses !== undefined) {
    where.push("status IN (SELECT value FROM json_each(@statuses))");
    params.statuses = JSON.stringify(filter.statuses);
  }
  if (filter.severities !== undefined) {
    where.push("severity IN (SELECT value FROM json_each(@severities))");
    params.severities = JSON.stringify(filter.severities);
  }
  if (filter.reviewer !== undefined) {
    where.push(
      "EXISTS (SELECT 1 FROM json_each(sources) s WHERE json_extract(s.value, '$.source') = @reviewer OR json_extract(s.value, '$.author') = @reviewer)",
    );
    params.reviewer = filter.reviewer;
  }
  if (filter.file !== undefined) {
    where.push("instr(file, @file) > 0");
    params.file = filter.file;
  }
  const clause = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
  return { sql: `SELECT * FROM findings${clause} ORDER BY rowid DESC LIMIT @limit OFFSET @offset`, params };
}

/**
 * Count and spend of the tasks a filter selects (its order and limit dropped) per status, and
 * their stage time: two statements, each walking the filtered tasks once.
 */
function taskTotalsSql(filter: TaskFilter): { spend: string; agent: string; params: Params } {
  // By seq (`+status`): the sums then walk a covering index (the narrow totals index of migration
  // 019, or the listing index of 006 for the filters the first does not hold), never the table's
  // rows with their prompts (1.2 s instead of 0.01 s at 100,000 tasks).
  const { clause, params } = filterSql(filter, true, true);
  return {
    spend: `SELECT status, COUNT(*) AS tasks, SUM(cost_usd) AS cost_usd, SUM(tokens) AS tokens FROM tasks${clause} GROUP BY status`,
    agent: `SELECT COALESCE(SUM(s.ended_at - s.started_at), 0) AS agent_ms
      FROM (SELECT id FROM tasks${clause}) t JOIN stage_executions s ON s.task_id = t.id`,
    params,
  };
}

/**
 * `listReviewerActivity`'s two reads, of the columns a reviewer's row is made of: the findings
 * (any order: they are counted), and the review stages in the order they ran.
 */
function reviewerActivitySql(filter: ReviewerActivityFilter): {
  findings: string;
  reviews: string;
  params: Params;
} {
  const params: Params = {};
  const findings: string[] = [];
  const reviews = ["kind = 'review'"];
  if (filter.taskId !== undefined) {
    findings.push("task_id = @taskId");
    reviews.push("task_id = @taskId");
    params.taskId = filter.taskId;
  }
  if (filter.since !== undefined) {
    findings.push("created_at >= @since");
    reviews.push("started_at >= @since");
    params.since = filter.since;
  }
  const where = (c: string[]) => (c.length > 0 ? ` WHERE ${c.join(" AND ")}` : "");
  return {
    findings: `SELECT sources, status, note, created_at FROM findings${where(findings)}`,
    reviews: `SELECT task_id, stage_id, cost_usd, started_at FROM stage_executions${where(reviews)} ORDER BY id`,
    params,
  };
}

/** `taskTotals`: the two statements of taskTotalsSql run on `sql`, summed per status. */
export function readTaskTotals(sql: Statements, filter: TaskFilter): TaskTotals {
  const { spend, agent, params } = taskTotalsSql(filter);
  const totals: TaskTotals = { tasks: 0, costUsd: 0, tokens: 0, agentMs: 0, byStatus: {} };
  for (const r of sql.all(spend, params)) {
    totals.tasks += Number(r.tasks);
    totals.costUsd += Number(r.cost_usd ?? 0);
    totals.tokens += Number(r.tokens ?? 0);
    totals.byStatus[String(r.status) as TaskStatus] = Number(r.tasks);
  }
  totals.agentMs = Number(sql.get(agent, params)?.agent_ms ?? 0);
  return totals;
}

/** `listReviewerActivity`: the two reads of reviewerActivitySql run on `sql`. */
export function readReviewerActivity(sql: Statements, filter: ReviewerActivityFilter): ReviewerActivity {
  const { findings, reviews, params } = reviewerActivitySql(filter);
  return {
    findings: sql.all(findings, params).map(toReviewerFinding),
    reviews: sql.all(reviews, params).map(toReviewStage),
  };
}
