/**
 * `status --json`'s task object (docs/cli.md), written by SQLite: one text per task instead of 19
 * JavaScript values, which is what lets 100,000 tasks stream in a few hundred milliseconds.
 * Keys in the documented order; `test/store/contract.ts` checks the values against the CLI's
 * `taskJson` for every store.
 */

const str = (column: string) => `json_quote(${column})`;
/** Epoch ms → `2026-01-31T08:00:00` (the format adds `.123Z` from `ms % 1000`, so nothing rounds). */
const seconds = (column: string) => `strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch')`;
/** Whole amounts as `0`, `12` (as JavaScript prints them), others as SQLite's shortest round trip. */
const money = (column: string) =>
  `CASE WHEN ${column} = CAST(${column} AS INTEGER) AND abs(${column}) < 1e15 THEN CAST(CAST(${column} AS INTEGER) AS TEXT) ELSE json_quote(${column}) END`;

/** Each key with its printf conversion and the SQL of its arguments, in the documented order. */
const FIELDS: [key: string, format: string, args: string[]][] = [
  ["id", "%s", [str("id")]],
  ["type", "%s", [str("type")]],
  ["title", "%s", [str("title")]],
  ["status", "%s", [str("status")]],
  ["final_verdict", "%s", [str("final_verdict")]],
  ["reason", "%s", [str("reason")]],
  ["cycle", "%d", ["cycle"]],
  ["max_cycles", "%d", ["max_cycles"]],
  ["priority", "%d", ["priority"]],
  ["current_stage", "%s", [str("current_stage")]],
  ["workflow", "%s", [str("workflow")]],
  ["base_branch", "%s", [str("base_branch")]],
  ["branch", "%s", [str("branch")]],
  ["worktree", "%s", [str("worktree_path")]],
  ["parent_id", "%s", [str("parent_id")]],
  ["created_at", '"%s.%03dZ"', [seconds("created_at"), "created_at % 1000"]],
  ["updated_at", '"%s.%03dZ"', [seconds("updated_at"), "updated_at % 1000"]],
  ["cost_usd", "%s", [money("cost_usd")]],
  ["tokens", "%d", ["tokens"]],
];

/**
 * The SQL expression of one task's JSON text over the `tasks` table's columns: one printf, which
 * builds the text once (a chain of `||` copies it at every step and costs a third more).
 */
export const TASK_JSON_EXPR = `printf('{${FIELDS.map(([k, f]) => `"${k}":${f}`).join(",")}}', ${FIELDS.flatMap(([, , args]) => args).join(", ")})`;

/**
 * One page as `SELECT json, count, lastSeq`: `clause` is filterSql's WHERE … ORDER BY … LIMIT,
 * so the page walks the listing's covering index; `newestFirst` picks which end is the last seq.
 */
export function taskJsonPageSql(clause: string, newestFirst: boolean): string {
  return `SELECT group_concat(j, ',' ORDER BY seq${newestFirst ? " DESC" : ""}) AS json, COUNT(*) AS n, ${newestFirst ? "MIN" : "MAX"}(seq) AS last
FROM (SELECT ${TASK_JSON_EXPR} AS j, seq FROM tasks${clause})`;
}
