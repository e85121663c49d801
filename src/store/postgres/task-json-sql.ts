/**
 * `status --json`'s task objects (docs/cli.md), as PostgreSQL keeps them: `status_json`, the
 * token hint (`0` or `1`) then the object without what a claim or a completion changes, generated
 * by the server whenever the other printed columns change (migration 009). The twin of
 * `sqlite/task-json-sql.ts`.
 */

/** The columns of a page, in the order TaskJsonPageReader reads them. */
export const TASK_JSON_FIELDS = 5;

/**
 * One page as `status_json, status, final_verdict, updated_at, seq`, in the listing's order:
 * `clause` is filterClause's WHERE … ORDER BY … LIMIT, its values written in (InlineValues), for
 * a binary COPY. The client puts the three columns into each object (TaskJsonPageReader) without
 * making the text a string: a page sent as one 400 KiB value cost the server and the client
 * several times the same text sent as 1,000 rows, and those rows read as strings cost the client
 * as much again (100,000 tasks: 0.66 s, 0.30 s through COPY).
 */
export function taskJsonPageSql(clause: string): string {
  return `SELECT status_json, status, final_verdict, updated_at::int8, seq::int8 FROM tasks${clause}`;
}
