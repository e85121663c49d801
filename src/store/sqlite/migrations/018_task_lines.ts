import { NEW_JSON, SOURCE_COLUMNS } from "./012_task_json.js";
import { TOKEN_HINT_UPDATE } from "./017_task_json_token_hint.js";

/**
 * `fixpoint status` (the table) at 100,000 tasks (issue 10): reading each task's columns into
 * JavaScript and formatting its line took 1.5 s, five times the budget `status --json` meets. So
 * `task_json` also keeps each task's line as the table prints it (src/cli/render/status.ts
 * statusLine), written by the same triggers as its JSON: `line` is the whole line with the id unpadded,
 * `line_id_length` the id's length, and a page pads the ids to the listing's width where they are
 * shorter (for ids `t-<n>` listed by `seq`, only on the pages where they grow a digit).
 *
 * `line_exact` is 1 only when the text is certainly the one statusLine makes: the row's values
 * are ones the store reads back unchanged (a known type, status and verdict; numbers the table
 * prints as JavaScript does), the id is ASCII, no text holds a character outside the Basic Multilingual Plane
 * (JavaScript cuts and pads by UTF-16 units, SQLite by characters), and the stored reason needs
 * no folding of whitespace. A page with any other row is formatted by statusLine as before, as is
 * one whose texts hold a token shape or a secret value of the printing process's environment (the
 * table redacts a title or reason before cutting it). `test/store/sqlite-task-lines.test.ts` holds
 * the text to statusLine for generated tasks after every kind of write, and the lists below to
 * the code's (TASK_TYPES, TASK_STATUSES, FINAL_VERDICTS).
 *
 * The text is frozen with this migration, like the JSON of 012: a change to the table's line is a
 * new migration that replaces these triggers and rebuilds the two columns.
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

/** attention.ts taskReason, for a reason that needs no folding (line_exact); '' when there is none. */
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
 * long as its last text does not end with a space (line_exact).
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

/** 1 when line(c) is statusLine's text for the row (see the header), else 0. */
const exact = (
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
  AND instr(coalesce(${c("reason")}, ''), '  ') = 0)`;

/** The two columns of the task a trigger sees as `NEW`, and of a `tasks` row in the backfill. */
const NEW_LINE = line((c) => `NEW.${c}`);
const NEW_EXACT = exact((c) => `NEW.${c}`);

/** For the test: the line and its exactness of a `tasks` row, as SQL over its bare columns. */
export const lineSql = line((c) => c);
export const exactSql = exact((c) => c);

export const sql = `
ALTER TABLE task_json ADD COLUMN line TEXT NOT NULL DEFAULT '';
ALTER TABLE task_json ADD COLUMN line_id_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE task_json ADD COLUMN line_exact INTEGER NOT NULL DEFAULT 0;
UPDATE task_json SET (line, line_id_length, line_exact) =
  (SELECT ${lineSql}, length(id), ${exactSql} FROM tasks WHERE tasks.seq = task_json.seq);
DROP TRIGGER tasks_json_insert;
CREATE TRIGGER tasks_json_insert AFTER INSERT ON tasks
BEGIN
  INSERT OR REPLACE INTO task_json (seq, json, status, updated_at, line, line_id_length, line_exact)
  VALUES (NEW.seq, ${NEW_JSON}, NEW.status, NEW.updated_at, ${NEW_LINE}, length(NEW.id), ${NEW_EXACT});
END;
DROP TRIGGER tasks_json_update;
CREATE TRIGGER tasks_json_update AFTER UPDATE OF ${SOURCE_COLUMNS} ON tasks
BEGIN
  UPDATE task_json SET json = ${NEW_JSON}, status = NEW.status, updated_at = NEW.updated_at,
    line = ${NEW_LINE}, line_id_length = length(NEW.id), line_exact = ${NEW_EXACT}
  WHERE seq = NEW.seq;
  ${TOKEN_HINT_UPDATE}
END;
DROP TRIGGER tasks_json_reseq;
CREATE TRIGGER tasks_json_reseq AFTER UPDATE OF seq ON tasks WHEN OLD.seq IS NOT NEW.seq
BEGIN
  DELETE FROM task_json WHERE seq = OLD.seq;
  INSERT OR REPLACE INTO task_json (seq, json, status, updated_at, line, line_id_length, line_exact)
  VALUES (NEW.seq, ${NEW_JSON}, NEW.status, NEW.updated_at, ${NEW_LINE}, length(NEW.id), ${NEW_EXACT});
END;
`;
