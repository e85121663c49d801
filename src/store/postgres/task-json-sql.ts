/**
 * `status --json`'s task objects (docs/cli.md), as PostgreSQL keeps them: `status_json`, the
 * token hint (`0` or `1`) then the object without what a claim or a completion changes, generated
 * by the server whenever the other printed columns change (migration 009). The twin of
 * `sqlite/task-json-sql.ts`.
 */

/**
 * One page as rows of `status_json, status, final_verdict, updated_at, seq`, in the listing's
 * order: `clause` is filterClause's WHERE … ORDER BY … LIMIT. The rows are read one by one and
 * joined by the client (PgTaskOps.listTaskJson), which puts the three columns into the object: a
 * page sent as one 400 KiB value cost the server and the client several times the same text sent
 * as 1,000 rows.
 */
export function taskJsonPageSql(clause: string): string {
  return `SELECT status_json, status, final_verdict, updated_at, seq FROM tasks${clause}`;
}
