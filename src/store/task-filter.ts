import type { TaskFilter } from "../domain/store.js";

/** TaskFilter's `holding` as a condition on the tasks table, the same in every dialect. */
export function holdingSql(holding: NonNullable<TaskFilter["holding"]>): string {
  return holding === "worktree"
    ? "worktree_path IS NOT NULL"
    : "(worktree_path IS NOT NULL OR branch IS NOT NULL)";
}
