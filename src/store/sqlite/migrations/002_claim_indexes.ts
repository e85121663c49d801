/**
 * Claims look up the oldest queued task and an expired lease separately (see task-sql.ts): the
 * first through (status, seq), the second through this (status, lease_expires_at) index. The
 * partial index of 001 no longer serves any query.
 */
export const sql = `
DROP INDEX IF EXISTS tasks_claimable;
CREATE INDEX tasks_status_lease ON tasks (status, lease_expires_at);
`;
