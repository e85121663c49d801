import type { StoreOps } from "../domain/store.js";
import type { Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";

/** The task a user named (`t-29` or `29`); `not_found` (exit 2) when there is none. */
export async function requireTask(store: StoreOps, ref: string): Promise<Task> {
  const task = await store.getTask(ref);
  if (!task) throw new FixpointError("not_found", `no task \`${ref}\` (see \`fixpoint status\`)`);
  return task;
}
