import { FINDING_STATUSES, type Finding, SEVERITIES } from "../../domain/types.js";
import { type Html, href, html } from "../html.js";
import { renderMarkdown } from "../markdown.js";
import { layout, type PageContext } from "./layout.js";

export const FINDINGS_PAGE_SIZE = 100;

export interface FindingsQuery {
  status?: string;
  severity?: string;
  reviewer?: string;
  file?: string;
  page: number;
}

/** Findings across tasks, newest first, filtered by status, severity, reviewer and file. */
export function findingsPage(findings: Finding[], q: FindingsQuery, ctx: PageContext): Html {
  const params = new URLSearchParams();
  for (const k of ["status", "severity", "reviewer", "file"] as const) {
    const v = q[k];
    if (v) params.set(k, v);
  }
  const pageUrl = (p: number) => {
    const u = new URLSearchParams(params);
    u.set("page", String(p));
    return `/findings?${u.toString()}`;
  };
  return layout(
    "Findings",
    html`<h1>Findings</h1>
<form class="filters" method="get" action="/findings">
<label>Status <select name="status"><option value="">any</option>${FINDING_STATUSES.map((s) => html`<option${s === q.status ? html` selected` : ""}>${s}</option>`)}</select></label>
<label>Severity <select name="severity"><option value="">any</option>${SEVERITIES.map((s) => html`<option${s === q.severity ? html` selected` : ""}>${s}</option>`)}</select></label>
<label>Reviewer <input name="reviewer" value="${q.reviewer ?? ""}" placeholder="review:security or an author"></label>
<label>File <input name="file" value="${q.file ?? ""}" placeholder="part of a path"></label>
<button type="submit">Filter</button>
</form>
${findings.length === 0 ? html`<p class="empty">No findings match.</p>` : ""}
<table class="findings"><thead><tr><th>task</th><th>id</th><th>severity</th><th>status</th><th>title</th><th>file</th><th>raised by</th></tr></thead><tbody>
${findings.map(
  (f) => html`<tr><td><a href="${href("/tasks", f.taskId)}">${f.taskId}</a></td>
<td><a href="${href("/tasks", f.taskId)}#finding-${f.id}">${f.id}</a></td><td>${f.severity}</td><td>${f.status}</td>
<td><details><summary>${f.title}</summary><div class="md">${renderMarkdown(f.body)}</div></details></td>
<td>${f.file ? html`<code>${f.file}${f.lineStart !== null ? `:${f.lineStart}` : ""}</code>` : ""}</td>
<td>${f.sources.map((s) => s.source).join(", ")}</td></tr>`,
)}
</tbody></table>
<nav class="pager">${q.page > 1 ? html`<a href="${pageUrl(q.page - 1)}">← previous</a>` : ""} page ${q.page} ${findings.length === FINDINGS_PAGE_SIZE ? html`<a href="${pageUrl(q.page + 1)}">next →</a>` : ""}</nav>`,
    { after: ctx.after },
  );
}
