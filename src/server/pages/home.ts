import type { TaskTotals } from "../../domain/store.js";
import type { TaskStatus, TaskSummary } from "../../domain/types.js";
import type { DashboardApi } from "../api.js";
import { type Html, href, html } from "../html.js";
import { duration, elapsedOf, money, needsKind, statusBadge } from "./format.js";
import { layout, type PageContext } from "./layout.js";

/** The morning report's groups, in the order a person wants them. */
const GROUPS: { key: string; title: string; status: TaskStatus; usesSince: boolean }[] = [
  { key: "needs", title: "Needs you", status: "needs_human", usesSince: true },
  { key: "failed", title: "Failed", status: "failed", usesSince: true },
  { key: "running", title: "Running", status: "running", usesSince: false },
  { key: "queued", title: "Queued", status: "queued", usesSince: false },
  { key: "approved", title: "Approved", status: "completed", usesSince: true },
];

const PER_GROUP = 20;
const SINCE_CHOICES = ["1h", "12h", "24h", "7d", "30d", "all"];

export interface MorningReport {
  sinceLabel: string;
  groups: {
    key: string;
    title: string;
    status: TaskStatus;
    count: number;
    tasks: TaskSummary[];
    usesSince: boolean;
  }[];
  totals: TaskTotals;
}

/** Counts per group (indexed counts) and the first page of each: a few small queries at any size. */
export async function loadMorningReport(
  api: DashboardApi,
  since: number | undefined,
  sinceLabel: string,
): Promise<MorningReport> {
  const groups = await Promise.all(
    GROUPS.map(async (g) => {
      const s = g.usesSince ? since : undefined;
      const [count, tasks] = await Promise.all([
        api.countTasks({ statuses: [g.status], since: s }),
        api.status({ statuses: [g.status], since: s, limit: PER_GROUP }),
      ]);
      return { ...g, count, tasks };
    }),
  );
  return { sinceLabel, groups, totals: await api.totals({ since }) };
}

/** The live part of the page (dashboard.js refetches it when events arrive). */
export function reportSection(r: MorningReport, ctx: PageContext): Html {
  const q = r.sinceLabel === "24h" ? "" : `?since=${encodeURIComponent(r.sinceLabel)}`;
  return html`<section id="report" data-live="/${q}${q ? "&" : "?"}fragment=report">
<ul class="counts">
${r.groups.map((g) => html`<li class="count c-${g.key}"><a href="#g-${g.key}"><strong>${g.count}</strong> ${g.title.toLowerCase()}</a></li>`)}
</ul>
<p class="totals">Since ${r.sinceLabel === "all" ? "the beginning" : r.sinceLabel === "24h" ? "24h ago" : r.sinceLabel}: <strong>${r.totals.tasks}</strong> tasks changed, <strong>${money(r.totals.costUsd)}</strong> spent, <strong>${duration(r.totals.agentMs)}</strong> of agent time, ${r.totals.tokens.toLocaleString("en")} tokens.</p>
${r.groups.map((g) => group(g, r.sinceLabel, ctx))}
</section>`;
}

function group(g: MorningReport["groups"][number], sinceLabel: string, ctx: PageContext): Html {
  const more = `/tasks?status=${g.status}${g.usesSince ? `&since=${encodeURIComponent(sinceLabel)}` : ""}`;
  return html`<section class="group" id="g-${g.key}">
<h2>${g.title} <span class="n">${g.count}</span></h2>
${g.tasks.length === 0 ? html`<p class="empty">None.</p>` : taskTable(g.tasks, ctx)}
${g.count > g.tasks.length ? html`<p><a href="${more}">All ${g.count} →</a></p>` : ""}
</section>`;
}

export function taskTable(tasks: TaskSummary[], ctx: PageContext): Html {
  return html`<table class="tasks">
<thead><tr><th>task</th><th>title</th><th>status</th><th>reason</th><th>stage</th><th>elapsed</th><th>cycles</th><th>cost</th></tr></thead>
<tbody>
${tasks.map(
  (t) => html`<tr data-task="${t.id}">
<td><a href="${href("/tasks", t.id)}">${t.id}</a></td>
<td class="title">${t.title}</td>
<td>${statusBadge(t.status, t.finalVerdict)}</td>
<td class="reason">${needsKind(t) ? html`<em>${needsKind(t)}</em> ` : ""}${t.reason ?? ""}</td>
<td class="stage">${t.currentStage ?? ""}</td>
<td>${duration(elapsedOf(t, ctx.now))}</td>
<td>${t.cycle}/${t.maxCycles}</td>
<td>${money(t.costUsd)}</td>
</tr>`,
)}
</tbody>
</table>`;
}

export function homePage(r: MorningReport, ctx: PageContext, banner?: Html): Html {
  return layout(
    "Morning report",
    html`<h1>Morning report</h1>
<form class="since" method="get" action="/">
<label>Since <select name="since">${SINCE_CHOICES.map((s) => html`<option value="${s}"${s === r.sinceLabel ? html` selected` : ""}>${s}</option>`)}${SINCE_CHOICES.includes(r.sinceLabel) ? "" : html`<option selected value="${r.sinceLabel}">${r.sinceLabel}</option>`}</select></label>
<button type="submit">Show</button>
</form>
${reportSection(r, ctx)}
<section class="feed"><h2>Live</h2><ol id="feed" class="feed-list"></ol></section>`,
    { banner, after: ctx.after },
  );
}
