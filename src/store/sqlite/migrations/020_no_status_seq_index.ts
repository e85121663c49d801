/**
 * SQLite claims (SPEC §14, ≥ 5,000/s): a claim moves its task from `queued` to `running`, and each
 * index whose key holds the status moves an entry with it, a page or two each in the WAL.
 * `tasks_status_seq` (status, seq) was one of them, kept for counts and filters by status; since
 * 019, `tasks_totals` leads with the status too and serves both (a count walks it; an equality
 * finds the rows through it and sorts the few running or queued tasks by seq). What no other
 * index did, walking one status in `seq` order to stop at a limit, no caller asks for: listings
 * filter the status as they walk `seq` (task-sql.ts, `bySeq`). Measured, 5,000 claims of a fresh
 * queue, 3 rounds: 4,712–5,632/s with the index, 6,134–6,968/s without it. PostgreSQL dropped
 * its own in migration 007.
 */
export const sql = `
DROP INDEX IF EXISTS tasks_status_seq;
`;
