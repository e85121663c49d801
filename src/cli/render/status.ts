import type { TaskSummary as Task } from "../../domain/types.js";
import { money, pad, plural, truncate } from "./format.js";

const MARKS: Record<string, string> = {
  queued: "·",
  running: "→",
  completed: "✓",
  needs_human: "!",
  failed: "✗",
  cancelled: "✗",
};

/** One line per task, as in SPEC §3. */
export function statusLine(t: Task, idWidth: number): string {
  const mark =
    t.status === "completed" && t.finalVerdict && !t.finalVerdict.startsWith("APPROVED")
      ? "!"
      : (MARKS[t.status] ?? " ");
  const head = `  ${mark} ${pad(t.id, idWidth)}  ${pad(t.type, 9)}  ${pad(truncate(t.title, 28), 28)}  ${pad(t.status, 11)}  `;
  if (t.status === "running") {
    return `${head}cycle ${t.cycle}/${t.maxCycles}${t.currentStage ? ` · ${t.currentStage}` : ""}${t.costUsd > 0 ? ` · ${money(t.costUsd)} so far` : ""}`;
  }
  if (t.finalVerdict) {
    const tail = `${t.finalVerdict} (${plural(t.cycle, "cycle")})${t.costUsd > 0 ? `  ${money(t.costUsd)}` : ""}`;
    return `${head}${tail}${t.parentId ? `  ↳ from ${t.parentId}` : ""}`;
  }
  return `${head}${t.parentId ? `↳ from ${t.parentId}` : ""}`.trimEnd();
}

export function statusTable(tasks: Task[]): string {
  if (tasks.length === 0) return 'No tasks. Queue one with `fixpoint add "…"`.\n';
  const w = Math.max(...tasks.map((t) => t.id.length));
  return `${tasks.map((t) => statusLine(t, w)).join("\n")}\n`;
}
