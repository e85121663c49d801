/** Agent transcripts and review files (gzip, capped), as SQLite's migration 011. */
export const sql = `
CREATE TABLE artifacts (
  task_id    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  data       BYTEA NOT NULL,
  size       BIGINT NOT NULL,
  truncated  BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (task_id, kind, name)
);
`;
