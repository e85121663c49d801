import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TaskEvent, TaskStatus } from "../domain/types.js";
import { restoreArtifacts } from "../engine/artifacts.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";

export interface TaskLog {
  taskId: string;
  events: TaskEvent[];
  /** The task's status now: a follower stops once it is neither queued nor running. */
  status: TaskStatus;
}

/** A task's events after `afterId` (all when absent), in append order. */
export async function taskEvents(
  ctx: Pick<AppContext, "store">,
  input: { task: string; afterId?: number },
): Promise<TaskLog> {
  const task = await requireTask(ctx.store, input.task);
  return { taskId: task.id, events: await ctx.store.listEvents(task.id, input.afterId), status: task.status };
}

/**
 * The task's agent transcripts, by file name order, one at a time: this machine's files, and
 * those only in the database (written here first, then read like the others): another machine's
 * worker stored them, or a run still going here, which writes its transcripts' files when it ends.
 * One file is open and held at a time, however many stages the task ran.
 */
export async function* eachTaskTranscript(
  ctx: Pick<AppContext, "store" | "dir">,
  ref: string,
): AsyncGenerator<{ name: string; text: string }> {
  const task = await requireTask(ctx.store, ref);
  const dir = join(ctx.dir, "transcripts", task.id);
  await restoreArtifacts(ctx.store, dir, task.id, "transcript");
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  for (const name of names) yield { name, text: await readFile(join(dir, name), "utf8") };
}

/** The task's agent transcripts (see `eachTaskTranscript`), all in one array. */
export async function taskTranscripts(
  ctx: Pick<AppContext, "store" | "dir">,
  ref: string,
): Promise<{ name: string; text: string }[]> {
  const all: { name: string; text: string }[] = [];
  for await (const t of eachTaskTranscript(ctx, ref)) all.push(t);
  return all;
}

/**
 * Writes into this machine's `.fixpoint/` the task's transcripts and review files that are only
 * in the database (see `taskTranscripts`), for readers of the files there (the dashboard). Returns
 * the stored review names, each now a file in the reviews folder (listReviewArtifacts).
 */
export async function restoreTaskFiles(
  ctx: Pick<AppContext, "store" | "dir">,
  taskId: string,
): Promise<{ reviews: string[] }> {
  await restoreArtifacts(ctx.store, join(ctx.dir, "transcripts", taskId), taskId, "transcript");
  return { reviews: await restoreArtifacts(ctx.store, join(ctx.dir, "reviews"), taskId, "review") };
}
