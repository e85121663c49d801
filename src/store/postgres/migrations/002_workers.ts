/** The workers registry, as SQLite's migration 007. */
export const sql = `
CREATE TABLE workers (
  id           TEXT PRIMARY KEY,
  host         TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  concurrency  INTEGER NOT NULL,
  started_at   BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
);
`;
