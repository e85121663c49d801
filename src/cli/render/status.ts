import { taskReason } from "../../app/attention.js";
import type { TaskTotals } from "../../domain/store.js";
import { STATUS_MARKS, TASK_STATUSES, type TaskSummary as Task } from "../../domain/types.js";
import { elapsed, money, pad, plural, thousands, truncate } from "./format.js";

/** The reason column is cut here so a line stays readable in a terminal. */
const REASON_WIDTH = 72;

/** One line per task, as in SPEC §3, ending with why it needs a person or stopped (attention.ts). */
export function statusLine(t: Task, idWidth: number, env: NodeJS.ProcessEnv = process.env): string {
  const cut = (text: string, max: number) => truncate(text, max, env);
  const mark =
    t.status === "completed" && t.finalVerdict && !t.finalVerdict.startsWith("APPROVED")
      ? "!"
      : (STATUS_MARKS[t.status] ?? " ");
  const head = `  ${mark} ${pad(t.id, idWidth)}  ${pad(t.type, 9)}  ${pad(cut(t.title, 28), 28)}  ${pad(t.status, 11)}  `;
  if (t.status === "running") {
    return `${head}cycle ${t.cycle}/${t.maxCycles}${t.currentStage ? ` · ${t.currentStage}` : ""}${t.costUsd > 0 ? ` · ${money(t.costUsd)} so far` : ""}`;
  }
  const reason = taskReason(t);
  const why = reason === "" ? "" : `  — ${cut(reason, REASON_WIDTH)}`;
  if (t.finalVerdict) {
    const tail = `${t.finalVerdict} (${plural(t.cycle, "cycle")})${t.costUsd > 0 ? `  ${money(t.costUsd)}` : ""}`;
    return `${head}${tail}${t.parentId ? `  ↳ from ${t.parentId}` : ""}${why}`;
  }
  return `${head}${t.parentId ? `↳ from ${t.parentId}` : ""}${why}`.trimEnd();
}

/** Lines for one page of tasks (no trailing newline handling: each line ends with one). */
export function statusLines(tasks: readonly Task[], idWidth: number): string {
  // One snapshot of the environment per page: redaction caches a snapshot's secret values, while
  // it must re-read the live process.env on every call (100,000 titles would read it 100,000 times).
  const env = { ...process.env };
  let out = "";
  for (const t of tasks) out += `${statusLine(t, idWidth, env)}\n`;
  return out;
}

export const NO_TASKS = 'No tasks. Queue one with `fixpoint add "…"`.\n';
export const NO_MATCH = "No tasks match these filters.\n";

/**
 * `12 tasks: 3 queued · 1 running · 6 completed · 2 needs_human · $4.10 · 1h02m of agent time`.
 */
export function totalsLine(t: TaskTotals): string {
  const counts = TASK_STATUSES.filter((s) => (t.byStatus[s] ?? 0) > 0).map(
    (s) => `${thousands(t.byStatus[s] ?? 0)} ${s}`,
  );
  const head = `${thousands(t.tasks)} ${t.tasks === 1 ? "task" : "tasks"}`;
  return `${[`${head}${counts.length > 0 ? `: ${counts.join(" · ")}` : ""}`, money(t.costUsd), `${elapsed(t.agentMs)} of agent time`].join(" · ")}\n`;
}
