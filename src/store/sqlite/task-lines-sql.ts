/**
 * `fixpoint status`'s table as SQLite keeps it (migration 018): each task's line in
 * `task_json.line`, its id unpadded. A page concatenates the lines of a range of `task_json` in
 * the database, padding the ids shorter than the listing's width, as task-json-sql.ts does for
 * the JSON (the same order argument holds, and the same choice between `task_json` alone and the
 * listing index joined to it).
 */

/** The parameter holding the id column's width (no filter of filterSql uses the name). */
export const WIDTH_PARAM = "lineWidth";

/** Widest id column padded in the database; a wider listing is formatted by the CLI. */
export const MAX_PADDED_WIDTH = 64;
const SPACES = " ".repeat(MAX_PADDED_WIDTH);

/**
 * A secret value as it appears in the stored JSON text, when it appears there as itself: printable
 * ASCII other than a quote or a backslash (json_quote leaves those alone). Null otherwise.
 */
function asStored(secret: string): string | null {
  return /^[\x20-\x7e]*$/.test(secret) && !/["\\]/.test(secret) ? secret : null;
}

/** The parameters naming the printing process's secret values, one per value stored as itself. */
export function secretParams(secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  secrets.forEach((s, i) => {
    const stored = asStored(s);
    if (stored !== null) out[`lineSecret${i}`] = stored;
  });
  return out;
}

/** 1 when the row's JSON text (every text of the task) holds one of the secret values. */
function secretFound(secrets: readonly string[], json: string): string {
  if (secrets.length === 0) return "0";
  // A value json_quote would have escaped cannot be looked for in the text: every page says 1.
  if (secrets.some((s) => asStored(s) === null)) return "1";
  return secrets.map((_, i) => `instr(${json}, @lineSecret${i}) > 0`).join(" OR ");
}

/** A stored line with its id padded to the width parameter. */
const padded = (line: string, idLength: string) =>
  `CASE WHEN ${idLength} >= @${WIDTH_PARAM} THEN ${line}
    ELSE substr(${line}, 1, 4 + ${idLength}) || substr('${SPACES}', 1, @${WIDTH_PARAM} - ${idLength}) || substr(${line}, 5 + ${idLength}) END`;

/**
 * One page as `SELECT lines, n, last, hint, exact, secret, widest, narrowest`: `exact` is 0 when a
 * row's line is not statusLine's (or is missing), `secret` 1 when a row's texts hold one of
 * `secrets` (the table redacts a title or reason before cutting it), `widest` and `narrowest` the
 * page's longest and shortest id. With `pad`, ids shorter than the width parameter are padded;
 * without, the lines are as stored (for a page whose ids all have the listing's width, the usual
 * case: padding every row costs 40 % more). With `joined`, `clause` is filterSql's WHERE … ORDER
 * BY … LIMIT over the task columns (the covering listing index); without, over `task_json`'s own
 * (`status`, `updated_at`, `seq`), as taskJsonOnlyPageSql.
 */
export function taskLinesPageSql(
  clause: string,
  secrets: readonly string[],
  opts: { newestFirst: boolean; joined: boolean; pad: boolean },
): string {
  const last = opts.newestFirst ? "MIN" : "MAX";
  const t = opts.joined ? "j." : "";
  const line = opts.pad ? padded(`${t}line`, `${t}line_id_length`) : `${t}line`;
  const select = `SELECT CAST(group_concat(${line}, '') AS BLOB) AS lines, COUNT(*) AS n,
  MAX(${t}token_hint) AS hint, MIN(coalesce(${t}line_exact, 0)) AS exact, MAX(${secretFound(secrets, `${t}json`)}) AS secret,
  MAX(${t}line_id_length) AS widest, MIN(${t}line_id_length) AS narrowest`;
  if (!opts.joined) {
    const json = secrets.length === 0 ? "" : ", json";
    return `${select}, ${last}(seq) AS last
FROM (SELECT seq, line, line_id_length, line_exact, token_hint${json} FROM task_json${clause})`;
  }
  return `${select}, ${last}(page.seq) AS last
FROM (SELECT seq FROM tasks${clause}) AS page LEFT JOIN task_json AS j ON j.seq = page.seq`;
}
