/**
 * `status` at 100,000 tasks (issue 10): a covering index holding exactly the columns a task
 * summary needs, in `seq` order. A listing page is one range scan of this index: no table rows
 * (with their prompts and metadata) are read and no sort is needed.
 */
export const sql = `
CREATE INDEX tasks_listing ON tasks (
  seq, status, id, type, title, workflow, base_branch, branch, worktree_path, final_verdict, reason,
  max_cycles, cycle, current_stage, parent_id, created_at, updated_at, cost_usd, tokens
);
`;
