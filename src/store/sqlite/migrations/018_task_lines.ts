import { tokenHintSql } from "./017_task_json_token_hint.js";

/**
 * `fixpoint status` (the table) at 100,000 tasks (issue 10): reading each task's columns into
 * JavaScript and formatting its line took 1.5 s, five times the budget `status --json` meets. So a
 * table `task_lines` keeps each task's line as the table prints it (src/cli/render/status.ts
 * statusLine), written by triggers on `tasks` as `task_json` is: `line` is the whole line with the
 * id unpadded, `id_length` the id's length, and a page pads the ids shorter than the listing's
 * width (for ids `t-<n>` listed by `seq`, only on the pages where they grow a digit). A table of
 * its own, not columns of `task_json`: those rows would grow by a quarter, and `status --json`,
 * which reads them whole, by 5 % (measured). `status` is kept for the listing's filter.
 *
 * `exact` is 1 only when the text is certainly the one statusLine makes, and may be printed
 * without the token-shape scan: the row's values are ones the store reads back unchanged (a known
 * type, status and verdict; numbers the table prints as JavaScript does), the id is ASCII, no text
 * holds a character outside the Basic Multilingual Plane (JavaScript cuts and pads by UTF-16
 * units, SQLite by characters), the stored reason needs no folding of whitespace, no printed text
 * ends in whitespace, and no printed text holds what may be a token (017's hint: the table hides a
 * token in a title or reason before cutting it). A page with any other row is formatted by
 * statusLine as before, as is one whose texts hold a secret value of the printing process's
 * environment (looked for at print time). `test/store/sqlite-task-lines.test.ts` holds the text to
 * statusLine for generated rows after every kind of write, and the lists below to the code's
 * (TASK_TYPES, TASK_STATUSES, FINAL_VERDICTS).
 *
 * The text is frozen with this migration, like the JSON of 012: a change to the table's line is a
 * new migration that replaces these triggers and rebuilds `task_lines`.
 */

/** Values frozen with this migration; the test checks them against domain/types.ts. */
export const LINE_TYPES = ["implement", "review", "improve", "pr-rework"];
export const LINE_STATUSES = ["queued", "running", "completed", "needs_human", "failed", "cancelled"];
export const LINE_VERDICTS = [
  "APPROVED",
  "APPROVED_WITH_FOLLOWUPS",
  "MAX_CYCLES_REACHED",
  "NEEDS_DISCUSSION",
  "NO_PROGRESS",
  "BLOCKED",
  "BUDGET_EXHAUSTED",
  "CHANGES_REQUESTED",
];

type Col = (column: string) => string;
/**
 * `value` is one of `values`, as equalities: `IN (…)` builds a table of the list each time a
 * trigger runs (50 µs per list, measured, against 1 µs for the equalities).
 */
const oneOf = (value: string, values: string[]) => `(${values.map((v) => `${value} = '${v}'`).join(" OR ")})`;

/** statusLine's `truncate(text, max)` without the redaction (see the header): cut with an ellipsis. */
const cut = (text: string, max: number) =>
  `CASE WHEN length(${text}) <= ${max} THEN ${text} ELSE substr(${text}, 1, ${max - 1}) || '…' END`;
const set = (text: string) => `coalesce(${text}, '') <> ''`;
const money = (c: string) => `printf('$%.2f', ${c})`;

/**
 * The expressions below name each column as few times as they can: SQLite loads every constant of
 * an expression (its string literals) each time a trigger runs, taken branch or not, so text
 * repeated by nesting (a needs-you kind inside a reason inside a cut) cost 60 µs per task write.
 */

/** attention.ts needsKind, for a task whose status is needs_human. */
const kind = (c: Col) => `CASE
  WHEN ${c("final_verdict")} IS NULL THEN CASE WHEN ${set(c("current_stage"))} THEN 'waiting at ' || ${c("current_stage")} ELSE 'waiting' END
  WHEN ${c("final_verdict")} = 'BUDGET_EXHAUSTED' THEN 'budget reached'
  WHEN ${c("final_verdict")} = 'MAX_CYCLES_REACHED' THEN 'cycle limit reached'
  WHEN ${c("final_verdict")} = 'NO_PROGRESS' THEN 'no progress'
  ELSE 'escalated' END`;

/** attention.ts taskReason, for a reason that needs no folding (`exact`); '' when there is none. */
const reasonText = (c: Col) => {
  const why = `coalesce(${c("reason")}, '')`;
  const more = `CASE WHEN ${why} = '' THEN '' ELSE ': ' || ${why} END`;
  return `CASE WHEN ${c("status")} = 'needs_human' THEN (${kind(c)}) || ${more}
  WHEN ${c("status")} = 'failed' THEN 'failed' || ${more} ELSE ${why} END`;
};

const mark = (c: Col) => `CASE
  WHEN ${c("status")} = 'completed' AND ${set(c("final_verdict"))} AND substr(${c("final_verdict")}, 1, 8) <> 'APPROVED' THEN '!'
  WHEN ${c("status")} = 'queued' THEN '·' WHEN ${c("status")} = 'running' THEN '→' WHEN ${c("status")} = 'completed' THEN '✓'
  WHEN ${c("status")} = 'needs_human' THEN '!' WHEN ${oneOf(c("status"), ["failed", "cancelled"])} THEN '✗' ELSE ' ' END`;

/**
 * statusLine with the id unpadded (see the header), and a newline. statusLine trims the end of a
 * line without a verdict; here every line is trimmed of spaces, which changes no other line as
 * long as its last text does not end with a space (`exact`).
 */
const line = (c: Col) => {
  const running = `${c("status")} = 'running'`;
  const head = `printf('  %-!9s  %-!28s  %-!11s  ', ${c("type")}, ${cut(c("title"), 28)}, ${c("status")})`;
  const cost = (prefix: string, suffix: string) =>
    `CASE WHEN ${c("cost_usd")} > 0 THEN '${prefix}' || ${money(c("cost_usd"))} || '${suffix}' ELSE '' END`;
  const parent = (prefix: string) =>
    `CASE WHEN ${set(c("parent_id"))} THEN '${prefix}↳ from ' || ${c("parent_id")} ELSE '' END`;
  const hasWhy = `(${oneOf(c("status"), ["needs_human", "failed"])} OR ${set(c("reason"))})`;
  return `'  ' || ${mark(c)} || ' ' || ${c("id")} || rtrim(${head} || CASE
  WHEN ${running} THEN 'cycle ' || ${c("cycle")} || '/' || ${c("max_cycles")}
    || CASE WHEN ${set(c("current_stage"))} THEN ' · ' || ${c("current_stage")} ELSE '' END || ${cost(" · ", " so far")}
  WHEN ${set(c("final_verdict"))} THEN ${c("final_verdict")} || ' (' || ${c("cycle")}
    || CASE WHEN ${c("cycle")} = 1 THEN ' cycle)' ELSE ' cycles)' END || ${cost("  ", "")} || ${parent("  ")}
  ELSE ${parent("")} END
  || CASE WHEN NOT ${running} AND ${hasWhy} THEN '  — ' || ${cut(`(${reasonText(c)})`, 72)} ELSE '' END, ' ') || char(10)`;
};

/** JavaScript's `\s` (what taskReason folds) but the plain space, as a GLOB class body. */
const OTHER_SPACES = "\t\n\u000b\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff";
/** A character outside the Basic Multilingual Plane (UTF-8 lead bytes F0–F4), in a text that is not ASCII. */
const astral = (text: string) => {
  const bytes = `CAST(${text} AS BLOB)`;
  return `(length(${bytes}) <> length(${text}) AND (instr(${bytes}, X'F0') OR instr(${bytes}, X'F1')
    OR instr(${bytes}, X'F2') OR instr(${bytes}, X'F3') OR instr(${bytes}, X'F4')))`;
};
const textOrNull = (text: string) => oneOf(`typeof(${text})`, ["text", "null"]);
const wholeNumber = (n: string) => `(typeof(${n}) = 'integer' AND abs(${n}) < 9007199254740992)`;

/**
 * 017's hint for what may be a token, over every free text a line prints (the others are from the
 * frozen lists above), one text at a time: a text the hint repeats (it names it a dozen times)
 * is read as the column itself, not made again from pieces.
 */
const mayHoldToken = (c: Col) =>
  ["id", "title", "reason", "current_stage", "parent_id"]
    .map((col) => `coalesce(${tokenHintSql(c(col))}, 0)`)
    .join(" OR ");

/** 1 when line(c) is statusLine's text for the row (see the header), else 0. */
const exact = (c: Col) => `${exactButTokens(c)}
  AND NOT (${mayHoldToken(c)}))`;

/**
 * exact without the token hint, and without its closing parenthesis (the migration's text stays
 * as it was written): the line is statusLine's text before any token is hidden.
 */
const exactButTokens = (
  c: Col,
) => `(typeof(${c("id")}) = 'text' AND length(CAST(${c("id")} AS BLOB)) = length(${c("id")})
  AND typeof(${c("title")}) = 'text'
  AND ${oneOf(c("type"), LINE_TYPES)} AND ${oneOf(c("status"), LINE_STATUSES)}
  AND (${c("final_verdict")} IS NULL OR ${oneOf(c("final_verdict"), LINE_VERDICTS)})
  AND ${textOrNull(c("reason"))} AND ${textOrNull(c("current_stage"))} AND ${textOrNull(c("parent_id"))}
  AND ${wholeNumber(c("cycle"))} AND ${wholeNumber(c("max_cycles"))}
  AND ${oneOf(`typeof(${c("cost_usd")})`, ["integer", "real"])} AND ${c("cost_usd")} < 1e15
  AND NOT ${astral(c("title"))} AND NOT ${astral(`coalesce(${c("reason")}, '')`)}
  AND NOT ${astral(`coalesce(${c("current_stage")}, '')`)}
  AND coalesce(${c("parent_id")}, '') NOT GLOB '*[ ${OTHER_SPACES}]' AND coalesce(${c("current_stage")}, '') NOT GLOB '*[ ${OTHER_SPACES}]'
  AND coalesce(${c("reason")}, '') NOT GLOB '*[${OTHER_SPACES}]*'
  AND coalesce(${c("reason")}, '') NOT GLOB ' *' AND coalesce(${c("reason")}, '') NOT GLOB '* '
  AND instr(coalesce(${c("reason")}, ''), '  ') = 0`;

/** The columns a line is made of: an update of any other (a lease renewal) runs no trigger. */
const LINE_COLUMNS =
  "id, type, title, status, final_verdict, reason, cycle, max_cycles, current_stage, parent_id, cost_usd";

/** A task's row of `task_lines`, from the task a trigger sees as `NEW` or from a `tasks` row. */
const values = (c: Col) => `${c("seq")}, ${c("status")}, ${line(c)}, length(${c("id")}), ${exact(c)}`;
const NEW_VALUES = values((c) => `NEW.${c}`);

/** For the test: the line and its exactness of a `tasks` row, as SQL over its bare columns. */
export const lineSql = line((c) => c);
export const exactSql = exact((c) => c);
/**
 * For the store: exactSql without the token hint, for the rows of a page the hint alone left
 * inexact (a URL's `://` sets it), which the store then looks at with redact.ts.
 */
export const exactButTokensSql = `${exactButTokens((c) => c)})`;

export const sql = `
CREATE TABLE task_lines (
  seq       INTEGER PRIMARY KEY,
  status    TEXT NOT NULL,
  line      TEXT NOT NULL,
  id_length INTEGER NOT NULL,
  exact     INTEGER NOT NULL
);
INSERT INTO task_lines (seq, status, line, id_length, exact) SELECT ${values((c) => c)} FROM tasks;
CREATE TRIGGER task_lines_insert AFTER INSERT ON tasks
BEGIN
  INSERT OR REPLACE INTO task_lines (seq, status, line, id_length, exact) VALUES (${NEW_VALUES});
END;
CREATE TRIGGER task_lines_update AFTER UPDATE OF ${LINE_COLUMNS} ON tasks
BEGIN
  UPDATE task_lines SET status = NEW.status, line = ${line((c) => `NEW.${c}`)}, id_length = length(NEW.id),
    exact = ${exact((c) => `NEW.${c}`)}
  WHERE seq = NEW.seq;
END;
CREATE TRIGGER task_lines_reseq AFTER UPDATE OF seq ON tasks WHEN OLD.seq IS NOT NEW.seq
BEGIN
  DELETE FROM task_lines WHERE seq = OLD.seq;
  INSERT OR REPLACE INTO task_lines (seq, status, line, id_length, exact) VALUES (${NEW_VALUES});
END;
CREATE TRIGGER task_lines_delete AFTER DELETE ON tasks
BEGIN
  DELETE FROM task_lines WHERE seq = OLD.seq;
END;
`;
