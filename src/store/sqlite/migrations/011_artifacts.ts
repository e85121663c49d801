/**
 * Agent transcripts and review files in the database (gzip, capped), so `show` and `logs` work
 * on a machine other than the one that ran the agent. One row per (task, kind, name).
 */
export const sql = `
CREATE TABLE artifacts (
  task_id    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  data       BLOB NOT NULL,
  size       INTEGER NOT NULL,
  truncated  INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, kind, name)
);
`;
