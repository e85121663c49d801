import { NEW_JSON, SOURCE_COLUMNS } from "./012_task_json.js";

/** The update trigger's statement: the task's text and the columns its filters test (017 reuses it). */
export const UPDATE_TASK_JSON = `UPDATE task_json SET json = ${NEW_JSON}, status = NEW.status, updated_at = NEW.updated_at
  WHERE seq = NEW.seq;`;

/**
 * `status --json` reads one b-tree instead of two (issue 10): `task_json` also keeps each task's
 * `status` and `updated_at`, the columns `status`'s filters test (a status list, `--since`), so a
 * page is a range of `task_json` by `seq` alone. Joining the listing index to the text for every
 * page was half of the store's part of `status --json` at 100,000 tasks (measured: 240 → 120 ms
 * for the whole listing). The triggers of 012 are rebuilt to keep the two columns too; the text
 * itself is unchanged.
 */
export const sql = `
ALTER TABLE task_json ADD COLUMN status TEXT NOT NULL DEFAULT '';
ALTER TABLE task_json ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
UPDATE task_json SET (status, updated_at) =
  (SELECT t.status, t.updated_at FROM tasks AS t WHERE t.seq = task_json.seq);
DROP TRIGGER tasks_json_insert;
CREATE TRIGGER tasks_json_insert AFTER INSERT ON tasks
BEGIN
  INSERT OR REPLACE INTO task_json (seq, json, status, updated_at)
  VALUES (NEW.seq, ${NEW_JSON}, NEW.status, NEW.updated_at);
END;
DROP TRIGGER tasks_json_update;
CREATE TRIGGER tasks_json_update AFTER UPDATE OF ${SOURCE_COLUMNS} ON tasks
BEGIN
  ${UPDATE_TASK_JSON}
END;
DROP TRIGGER tasks_json_reseq;
CREATE TRIGGER tasks_json_reseq AFTER UPDATE OF seq ON tasks WHEN OLD.seq IS NOT NEW.seq
BEGIN
  DELETE FROM task_json WHERE seq = OLD.seq;
  INSERT OR REPLACE INTO task_json (seq, json, status, updated_at)
  VALUES (NEW.seq, ${NEW_JSON}, NEW.status, NEW.updated_at);
END;
`;
