import type { TaskPatch } from "../domain/store.js";

/** Patch key → tasks column, and whether its value is JSON. The same in every dialect. */
const PATCH_COLUMNS: Record<keyof TaskPatch, { column: string; json?: true }> = {
  status: { column: "status" },
  finalVerdict: { column: "final_verdict" },
  reason: { column: "reason" },
  cycle: { column: "cycle" },
  currentStage: { column: "current_stage" },
  branch: { column: "branch" },
  worktreePath: { column: "worktree_path" },
  maxCycles: { column: "max_cycles" },
  priority: { column: "priority" },
  notes: { column: "notes" },
  workflow: { column: "workflow" },
  budget: { column: "budget", json: true },
  agents: { column: "agents", json: true },
  // Replaced whole: callers spread the task's current meta (unknown keys included) into it.
  meta: { column: "meta", json: true },
};

export type PatchColumn = { key: keyof TaskPatch; column: string } & (
  | { json: true; value: object }
  | { json: false; value: string | number | null }
);

const PATCH_KEYS = Object.keys(PATCH_COLUMNS) as (keyof TaskPatch)[];

/**
 * The columns a patch sets, in PATCH_COLUMNS's order whatever the patch's (the same keys make the
 * same statement, prepared once: `{ cycle, currentStage }` and `{ currentStage, cycle }` were two,
 * and preparing an update of `tasks` compiles its triggers, 0.6 ms). Undefined means "leave as
 * is" (skipped), null clears, unknown keys are ignored. `value` is what the column holds: a JSON
 * column's object is left for the dialect to encode (`json`), anything else not a string or
 * number is JSON text.
 */
export function patchColumns(patch: TaskPatch): PatchColumn[] {
  const out: PatchColumn[] = [];
  for (const key of PATCH_KEYS) {
    const value = patch[key];
    if (value === undefined) continue;
    const { column, json } = PATCH_COLUMNS[key];
    const isObject = typeof value === "object" && value !== null;
    if (json === true && isObject) out.push({ key, column, json: true, value });
    else if (typeof value === "string" || typeof value === "number" || value === null)
      out.push({ key, column, json: false, value });
    else out.push({ key, column, json: false, value: JSON.stringify(value) });
  }
  return out;
}
