/**
 * The workers registry (`fixpoint workers`): every `work` process records itself here, refreshes
 * `heartbeat_at` while it runs and deletes its row when it stops. A crashed worker's row stays
 * until its heartbeat is old enough to call it gone.
 */
export const sql = `
CREATE TABLE workers (
  id           TEXT PRIMARY KEY,
  host         TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  concurrency  INTEGER NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
);
`;
