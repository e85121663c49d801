/**
 * `status --json`'s task object (docs/cli.md), written by PostgreSQL: the twin of
 * `sqlite/task-json-sql.ts`, one text per task in the documented key order.
 */

const str = (column: string) => `COALESCE(to_json(${column})::text, 'null')`;
/** Epoch ms → `2026-01-31T08:00:00.123Z`, in integer arithmetic so milliseconds never round. */
const iso = (column: string) =>
  `'"' || to_char(to_timestamp(${column} / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((${column} % 1000)::text, 3, '0') || 'Z"'`;

const FIELDS: [key: string, expr: string][] = [
  ["id", str("id")],
  ["type", str("type")],
  ["title", str("title")],
  ["status", str("status")],
  ["final_verdict", str("final_verdict")],
  ["reason", str("reason")],
  ["cycle", "cycle::text"],
  ["max_cycles", "max_cycles::text"],
  ["priority", "priority::text"],
  ["current_stage", str("current_stage")],
  ["workflow", str("workflow")],
  ["base_branch", str("base_branch")],
  ["branch", str("branch")],
  ["worktree", str("worktree_path")],
  ["parent_id", str("parent_id")],
  ["created_at", iso("created_at")],
  ["updated_at", iso("updated_at")],
  // float8's text is the shortest that reads back the same (`0`, `1.5`, `1e-07`).
  ["cost_usd", "cost_usd::text"],
  ["tokens", "tokens::text"],
];

const TASK_JSON_EXPR = `'{' || ${FIELDS.map(([k, e], i) => `'${i === 0 ? "" : ","}"${k}":' || ${e}`).join(" || ")} || '}'`;

/** One page as `SELECT json, n, last`; `clause` is filterClause's WHERE … ORDER BY … LIMIT. */
export function taskJsonPageSql(clause: string, newestFirst: boolean): string {
  return `SELECT string_agg(j, ',' ORDER BY seq${newestFirst ? " DESC" : ""}) AS json, COUNT(*) AS n, ${newestFirst ? "MIN" : "MAX"}(seq) AS last
FROM (SELECT ${TASK_JSON_EXPR} AS j, seq FROM tasks${clause}) page`;
}
