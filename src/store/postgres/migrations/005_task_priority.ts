/**
 * Task priority and notes, as SQLite's migration 010: claims take the highest priority first,
 * then the oldest. The claim's candidates are an ordered walk of this partial index (it replaces
 * `tasks_live`, which ordered by seq alone).
 */
export const sql = `
ALTER TABLE tasks ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN notes TEXT;
CREATE INDEX tasks_claim_order ON tasks (priority DESC, seq) WHERE status IN ('queued', 'running');
DROP INDEX IF EXISTS tasks_live;
`;
