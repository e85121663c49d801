/**
 * `status --json` at 100,000 tasks (issue 10): each task's JSON object (docs/cli.md, keys in the
 * documented order) is written when the task is, into `task_json` keyed by `seq`, so a listing
 * page only concatenates stored text. Building the text at read time (printf, json_quote, two
 * date conversions per row) was 60% of the whole `status --json` process.
 *
 * A side table, not a column of `tasks`: a trigger that rewrote the task row would rewrite its
 * prompt (tens of KB, overflow pages) a second time on every claim and stage; a `task_json` row is
 * only its ~400 bytes. Triggers keep it exact on every write, whatever statement makes it (claims,
 * patches, the spend trigger of 003, a hand edit); recursive triggers are off and no trigger here
 * writes `tasks`, so nothing loops. The rows are backfilled here.
 *
 * The text is frozen with this migration: a change to the task object is a new migration that
 * replaces these triggers and rebuilds `task_json` (`DELETE`, then the `INSERT … SELECT` below).
 * `test/store/contract-task-json.ts` checks it against the CLI's `taskJson` after every kind of write.
 */

/** `row.column` in a trigger (`NEW`), the bare column in the backfill. */
type Col = (column: string) => string;

const str = (c: string) => `json_quote(${c})`;
/** Epoch ms → `2026-01-31T08:00:00` (the format adds `.123Z` from `ms % 1000`, so nothing rounds). */
const seconds = (c: string) => `strftime('%Y-%m-%dT%H:%M:%S', ${c} / 1000, 'unixepoch')`;
/** Whole amounts as `0`, `12` (as JavaScript prints them), others as SQLite's shortest round trip. */
const money = (c: string) =>
  `CASE WHEN ${c} = CAST(${c} AS INTEGER) AND abs(${c}) < 1e15 THEN CAST(CAST(${c} AS INTEGER) AS TEXT) ELSE json_quote(${c}) END`;

/** Each key with its printf conversion and the SQL of its arguments, in the documented order. */
const FIELDS: [key: string, format: string, args: (col: Col) => string[]][] = [
  ["id", "%s", (c) => [str(c("id"))]],
  ["type", "%s", (c) => [str(c("type"))]],
  ["title", "%s", (c) => [str(c("title"))]],
  ["status", "%s", (c) => [str(c("status"))]],
  ["final_verdict", "%s", (c) => [str(c("final_verdict"))]],
  ["reason", "%s", (c) => [str(c("reason"))]],
  ["cycle", "%d", (c) => [c("cycle")]],
  ["max_cycles", "%d", (c) => [c("max_cycles")]],
  ["priority", "%d", (c) => [c("priority")]],
  ["current_stage", "%s", (c) => [str(c("current_stage"))]],
  ["workflow", "%s", (c) => [str(c("workflow"))]],
  ["base_branch", "%s", (c) => [str(c("base_branch"))]],
  ["branch", "%s", (c) => [str(c("branch"))]],
  ["worktree", "%s", (c) => [str(c("worktree_path"))]],
  ["parent_id", "%s", (c) => [str(c("parent_id"))]],
  ["created_at", '"%s.%03dZ"', (c) => [seconds(c("created_at")), `${c("created_at")} % 1000`]],
  ["updated_at", '"%s.%03dZ"', (c) => [seconds(c("updated_at")), `${c("updated_at")} % 1000`]],
  ["cost_usd", "%s", (c) => [money(c("cost_usd"))]],
  ["tokens", "%d", (c) => [c("tokens")]],
];

/**
 * The columns the text is made of, but `seq` (its key, see below): an UPDATE of any other column
 * (a lease renewal) runs no trigger.
 */
export const SOURCE_COLUMNS =
  "id, type, title, status, final_verdict, reason, cycle, max_cycles, priority, current_stage, workflow, base_branch, branch, worktree_path, parent_id, created_at, updated_at, cost_usd, tokens";

/** One task's text in one printf (a chain of `||` copies the text at every step). */
const taskJson = (col: Col) =>
  `printf('{${FIELDS.map(([k, f]) => `"${k}":${f}`).join(",")}}', ${FIELDS.flatMap(([, , args]) => args(col)).join(", ")})`;

/** The text of the task a trigger sees as `NEW` (migration 015 rebuilds the triggers with it). */
export const NEW_JSON = taskJson((c) => `NEW.${c}`);

// A plain UPDATE in place on a write (an upsert costs a failed insert first); fixpoint never
// changes a task's seq, but a hand edit that does moves its text along.
export const sql = `
CREATE TABLE task_json (
  seq  INTEGER PRIMARY KEY,
  json TEXT NOT NULL
);
INSERT INTO task_json (seq, json) SELECT seq, ${taskJson((c) => c)} FROM tasks;
CREATE TRIGGER tasks_json_insert AFTER INSERT ON tasks
BEGIN
  INSERT OR REPLACE INTO task_json (seq, json) VALUES (NEW.seq, ${NEW_JSON});
END;
CREATE TRIGGER tasks_json_update AFTER UPDATE OF ${SOURCE_COLUMNS} ON tasks
BEGIN
  UPDATE task_json SET json = ${NEW_JSON} WHERE seq = NEW.seq;
END;
CREATE TRIGGER tasks_json_reseq AFTER UPDATE OF seq ON tasks WHEN OLD.seq IS NOT NEW.seq
BEGIN
  DELETE FROM task_json WHERE seq = OLD.seq;
  INSERT OR REPLACE INTO task_json (seq, json) VALUES (NEW.seq, ${NEW_JSON});
END;
CREATE TRIGGER tasks_json_delete AFTER DELETE ON tasks
BEGIN
  DELETE FROM task_json WHERE seq = OLD.seq;
END;
`;
