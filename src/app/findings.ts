import { z } from "zod";
import { FINDING_STATUSES, type Finding } from "../domain/types.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";
import { parseInput } from "./validate.js";

const Input = z.object({ task: z.string().min(1), status: z.enum(FINDING_STATUSES).optional() }).strict();
export type ListFindingsInput = z.input<typeof Input>;

/** A task's findings registry, optionally only those with one status. */
export async function listFindings(
  ctx: Pick<AppContext, "store">,
  raw: ListFindingsInput,
): Promise<Finding[]> {
  const input = parseInput("findings", Input, raw);
  const task = await requireTask(ctx.store, input.task);
  const all = await ctx.store.listFindings(task.id);
  return input.status ? all.filter((f) => f.status === input.status) : all;
}
