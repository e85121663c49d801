/**
 * Task priority and notes (issue 9): claims take the highest priority first, then the oldest.
 * The queued candidate of a claim is one seek in (status, priority DESC, seq, id), a covering
 * index (no table row is read to pick it); the old (status, seq) index still serves listings.
 * The listing index of 006 is rebuilt with the priority, so a task summary still reads no row.
 */
export const sql = `
ALTER TABLE tasks ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN notes TEXT;
CREATE INDEX tasks_claim_order ON tasks (status, priority DESC, seq, id);
DROP INDEX tasks_listing;
CREATE INDEX tasks_listing ON tasks (
  seq, status, id, type, title, workflow, base_branch, branch, worktree_path, final_verdict, reason,
  max_cycles, cycle, current_stage, parent_id, created_at, updated_at, cost_usd, tokens, priority
);
`;
