import type { Store } from "../domain/store.js";
import type { Task } from "../domain/types.js";
import { FixpointError } from "../errors.js";

export async function requireTask(store: Store, ref: string): Promise<Task> {
  const task = await store.getTask(ref);
  if (!task) throw new FixpointError("not_found", `no task \`${ref}\` (see \`fixpoint status\`)`);
  return task;
}

export function parsePositiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new FixpointError("usage", `${flag} takes a whole number, not \`${value}\``);
  return n;
}

export function parseNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new FixpointError("usage", `${flag} takes a positive number, not \`${value}\``);
  return n;
}
