import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type Finding,
  type Run,
  type StageExecution,
  type Task,
  type TaskEvent,
  totalTokens,
} from "../domain/types.js";
import { reviewArtifactPath } from "../engine/artifacts.js";
import type { AppContext } from "./context.js";
import { requireTask } from "./task-ref.js";

export interface TaskDetails {
  task: Task;
  runs: Run[];
  stages: StageExecution[];
  findings: Finding[];
  events: TaskEvent[];
  /** Review artifacts that exist on disk, by cycle. */
  reviewArtifacts: string[];
  totals: { costUsd: number; tokens: number };
}

/** Everything known about one task: runs, stage timeline, findings registry, events, artifacts. */
export async function showTask(ctx: Pick<AppContext, "store" | "dir">, ref: string): Promise<TaskDetails> {
  const { store } = ctx;
  const task = await requireTask(store, ref);
  const [runs, stages, findings, events] = await Promise.all([
    store.listRuns(task.id),
    store.listStageExecutions(task.id),
    store.listFindings(task.id),
    store.listEvents(task.id),
  ]);
  const cycles = [...new Set(stages.map((s) => s.cycle))].sort((a, b) => a - b);
  const reviewArtifacts = cycles
    .map((c) => reviewArtifactPath(join(ctx.dir, "reviews"), task.id, c))
    .filter((p) => existsSync(p));
  const costUsd = stages.reduce((a, s) => a + s.costUsd, 0);
  const tokens = stages.reduce((a, s) => a + totalTokens(s.usage), 0);
  return { task, runs, stages, findings, events, reviewArtifacts, totals: { costUsd, tokens } };
}
