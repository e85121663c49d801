/**
 * Claims and releases that touch fewer index entries (issue 12, the claims benchmark). PostgreSQL
 * only: SQLite's schema and behaviour are unchanged.
 *
 * An UPDATE that changes no indexed column, and finds room on its page, is a HOT update: no index
 * gets a new entry. Before this migration every claim and release changed `status`, which three
 * indexes named (`tasks_status_seq`, and the predicate of `tasks_claim_order`), so each added an
 * entry to every index on `tasks`. Now:
 * - `live` (queued or running, computed by the server) is what the claim index is filtered on; a
 *   claim (queued → running) and a heartbeat leave it as it is, so they are HOT;
 * - `tasks_status_seq` is gone: listing live statuses uses the claim index (the store adds
 *   `live` to such a filter), other statuses are read in seq order with a filter;
 * - `fillfactor` 80 leaves room on each page for the next version of its rows;
 * - the NOTIFY on a newly queued task stays a trigger for INSERT only (created and copied tasks);
 *   the store's UPDATEs that can queue a task (updateTask, releaseTask) NOTIFY in the statement
 *   itself, so claims and completions no longer run a row trigger at all.
 */
export const sql = `
ALTER TABLE tasks SET (fillfactor = 80);
ALTER TABLE tasks ADD COLUMN live BOOLEAN GENERATED ALWAYS AS (status IN ('queued', 'running')) STORED;
CREATE INDEX tasks_claim_live ON tasks (priority DESC, seq) WHERE live;
DROP INDEX IF EXISTS tasks_claim_order;
DROP INDEX IF EXISTS tasks_status_seq;
DROP TRIGGER IF EXISTS tasks_notify_work ON tasks;
CREATE TRIGGER tasks_notify_new_work AFTER INSERT ON tasks
  FOR EACH ROW WHEN (NEW.status = 'queued' AND NEW.worker_id IS NULL)
  EXECUTE FUNCTION fixpoint_notify_work();
`;
