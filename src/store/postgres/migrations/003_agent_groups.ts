/** The process groups of running agents per task and host, as SQLite's migration 008. */
export const sql = `
CREATE TABLE agent_groups (
  task_id     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  pgid        INTEGER NOT NULL,
  host        TEXT NOT NULL,
  worker_id   TEXT NOT NULL,
  start_ticks BIGINT,
  started_at  BIGINT NOT NULL,
  PRIMARY KEY (task_id, pgid, host)
);
`;
