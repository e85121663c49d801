/**
 * `fixpoint status`'s table as SQLite keeps it (migration 018): each task's line in `task_lines`,
 * its id unpadded. A page concatenates the lines of a range in the database, padding the ids
 * shorter than the listing's width, as task-json-sql.ts does for the JSON (the same order argument
 * holds).
 */

import type { TaskFilter } from "../../domain/store.js";
import { exactButTokensSql } from "./migrations/018_task_lines.js";

/** The parameter holding the id column's width (no filter of filterSql uses the name). */
export const WIDTH_PARAM = "lineWidth";

/** Widest id column padded in the database; a wider listing is formatted by the CLI. */
export const MAX_PADDED_WIDTH = 64;
const SPACES = " ".repeat(MAX_PADDED_WIDTH);

/** The parameters naming the printing process's secret values, one per value. */
export function secretParams(secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  secrets.forEach((s, i) => {
    out[`lineSecret${i}`] = s;
  });
  return out;
}

/**
 * Whether a page can be read from `task_lines` alone: its filter tests only `status` and `seq`
 * (which the table keeps) and no secret value is to be looked for in the tasks' texts. Otherwise
 * the listing index is joined to it.
 */
export function linesOnly(filter: TaskFilter, secrets: readonly string[]): boolean {
  return (
    secrets.length === 0 &&
    filter.ids === undefined &&
    filter.idPrefix === undefined &&
    filter.branch === undefined &&
    filter.parentId === undefined &&
    filter.holding === undefined &&
    filter.updatedSince === undefined
  );
}

/** A stored line with its id padded to the width parameter. */
const padded = (line: string, idLength: string) =>
  `CASE WHEN ${idLength} >= @${WIDTH_PARAM} THEN ${line}
    ELSE substr(${line}, 1, 4 + ${idLength}) || substr('${SPACES}', 1, @${WIDTH_PARAM} - ${idLength}) || substr(${line}, 5 + ${idLength}) END`;

/**
 * One page as `SELECT lines, n, last, exact, secret, widest, narrowest`: `exact` is 0 when a row's
 * line is not statusLine's (or is missing), `secret` 1 when a row's title, reason or current stage
 * (the texts a line may cut) holds one of the secret values, `widest` and `narrowest` the page's
 * longest and shortest id. With `pad`, ids shorter than the width parameter are padded; without,
 * the lines are as stored (for a page whose ids all have the listing's width, the usual case:
 * padding every row costs 40 % more). `clause` is filterSql's WHERE … ORDER BY … LIMIT: over
 * `task_lines` alone when linesOnly, else over the task columns (the covering listing index).
 */
export function taskLinesPageSql(
  clause: string,
  secrets: number,
  opts: { newestFirst: boolean; linesOnly: boolean; pad: boolean },
): string {
  const last = opts.newestFirst ? "MIN" : "MAX";
  const t = opts.linesOnly ? "" : "l.";
  const line = opts.pad ? padded(`${t}line`, `${t}id_length`) : `${t}line`;
  const found = Array.from({ length: secrets }, (_, i) =>
    ["title", "reason", "current_stage"]
      .map((c) => `coalesce(instr(page.${c}, @lineSecret${i}), 0) > 0`)
      .join(" OR "),
  );
  const select = `SELECT CAST(group_concat(${line}, '') AS BLOB) AS lines, COUNT(*) AS n,
  MIN(coalesce(${t}exact, 0)) AS exact, MAX(${t}id_length) AS widest, MIN(${t}id_length) AS narrowest`;
  if (opts.linesOnly) {
    return `${select}, 0 AS secret, ${last}(seq) AS last
FROM (SELECT seq, line, id_length, exact FROM task_lines${clause})`;
  }
  return `${select}, MAX(${found.length === 0 ? "0" : found.join(" OR ")}) AS secret, ${last}(page.seq) AS last
FROM (SELECT seq, title, reason, current_stage FROM tasks${clause}) AS page LEFT JOIN task_lines AS l ON l.seq = page.seq`;
}

/**
 * The rows of a page (`clause` as taskLinesPageSql's) that migration 018 left inexact or without
 * a line, with the texts a line prints, the stored line (NULL for none), and `ok` 1 when the
 * token hint alone made it inexact (a URL's `://` sets it): the store looks at those with
 * redact.ts before leaving the page to the CLI.
 */
export function hintedRowsSql(clause: string): string {
  return `SELECT id, title, reason, current_stage, parent_id,
  (SELECT line FROM task_lines AS l WHERE l.seq = tasks.seq) AS line, ${exactButTokensSql} AS ok
FROM tasks WHERE seq IN (SELECT page.seq FROM (SELECT seq FROM tasks${clause}) AS page
  LEFT JOIN task_lines AS l ON l.seq = page.seq WHERE l.exact IS NOT 1)`;
}
