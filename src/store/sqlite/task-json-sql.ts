/**
 * `status --json`'s task objects (docs/cli.md), as SQLite keeps them: one text per task in
 * `task_json`, written by triggers whenever the task is (migration 012), so a page of 5,000 tasks
 * is one range of the listing index joined to stored text, concatenated in the database.
 * `test/store/contract-task-json.ts` checks the text against the CLI's `taskJson` for every store.
 */

import type { TaskFilter } from "../../domain/store.js";

/**
 * One page as `SELECT json, n, last, hint` (hint: 0 when no row's text can hold a token shape,
 * migration 017): `clause` is filterSql's WHERE … ORDER BY … LIMIT over the
 * task columns (the covering `tasks_listing` index), so every filter means what it means for
 * listTaskSummaries. `newestFirst` picks which end is the last seq.
 *
 * Order: group_concat appends rows in the order the loop yields them. The page subquery yields
 * them in its ORDER BY, and the left side of a LEFT JOIN stays the outer loop, so the text follows
 * the page; `n` and `last` count the page itself, so the listing goes on to the next page even if a
 * text were ever missing. An `ORDER BY` inside group_concat would say the same at
 * the price of sorting 2 MB per page again (a third of the query). The contract test checks the
 * order both ways over several pages.
 */
export function taskJsonPageSql(clause: string, newestFirst: boolean): string {
  return `SELECT CAST(group_concat(j.json, ',') AS BLOB) AS json, COUNT(*) AS n, ${newestFirst ? "MIN" : "MAX"}(page.seq) AS last,
  MAX(j.token_hint) AS hint
FROM (SELECT seq FROM tasks${clause}) AS page LEFT JOIN task_json AS j ON j.seq = page.seq`;
}

/**
 * The same page read from `task_json` alone (migration 015 keeps `status` and `updated_at` there),
 * for filters that test only those columns and `seq`: one b-tree range instead of the listing
 * index joined to the text. Null for a filter on other columns (`ids`, `idPrefix`, `branch`,
 * `parentId`, `holding`): use
 * taskJsonPageSql. `clause` is filterSql's, whose column names `task_json` shares.
 */
export function taskJsonOnlyPageSql(
  clause: string,
  filter: Pick<TaskFilter, "ids" | "idPrefix" | "branch" | "parentId" | "holding" | "newestFirst">,
): string | null {
  const { ids, idPrefix, branch, parentId, holding } = filter;
  if ([ids, idPrefix, branch, parentId, holding].some((f) => f !== undefined)) return null;
  return `SELECT CAST(group_concat(json, ',') AS BLOB) AS json, COUNT(*) AS n, ${filter.newestFirst === true ? "MIN" : "MAX"}(seq) AS last,
  MAX(token_hint) AS hint
FROM (SELECT seq, json, token_hint FROM task_json${clause})`;
}
