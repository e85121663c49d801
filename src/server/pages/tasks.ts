import type { TaskSummary } from "../../domain/types.js";
import { type Html, html } from "../html.js";
import { taskTable } from "./home.js";
import { layout, type PageContext } from "./layout.js";

export const TASKS_PER_PAGE = 50;

/** Every task, newest first, a page at a time (keyset paging on seq: fast at any size). */
export function tasksPage(
  tasks: TaskSummary[],
  q: { status?: string; since?: string; total: number },
  ctx: PageContext,
): Html {
  const params = new URLSearchParams();
  if (q.status) params.set("status", q.status);
  if (q.since) params.set("since", q.since);
  const last = tasks.at(-1);
  if (last && tasks.length === TASKS_PER_PAGE) params.set("before", String(last.seq));
  const filters = [q.status && `status ${q.status}`, q.since && `since ${q.since}`]
    .filter(Boolean)
    .join(", ");
  return layout(
    "Tasks",
    html`<h1>Tasks <span class="n">${q.total}</span></h1>
${filters ? html`<p>Filtered by ${filters}. <a href="/tasks">Show all</a></p>` : ""}
${tasks.length === 0 ? html`<p class="empty">No tasks.</p>` : taskTable(tasks, ctx)}
${params.has("before") ? html`<nav class="pager"><a href="/tasks?${params.toString()}">next page →</a></nav>` : ""}`,
    { after: ctx.after },
  );
}
