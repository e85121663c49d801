/**
 * Fencing tokens: every claim of a task increments `lease_token`, so a worker's hold on a task
 * is (worker_id, lease_token) and a worker whose lease was taken over holds a stale pair.
 */
export const sql = `
ALTER TABLE tasks ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
`;
