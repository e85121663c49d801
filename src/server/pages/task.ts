import { pullRequestState } from "../../app/pr-state.js";
import type { Finding, StageExecution, TaskEvent } from "../../domain/types.js";
import { totalTokens } from "../../domain/types.js";
import { groupBy } from "../../util/group-by.js";
import type { ArtifactList, TaskDetail } from "../api.js";
import { type DiffFile, parseUnifiedDiff } from "../diff.js";
import { type Html, href, html } from "../html.js";
import { renderMarkdown } from "../markdown.js";
import { findingActions, taskActions } from "./actions.js";
import { duration, elapsedOf, money, needsKind, statusBadge, when } from "./format.js";
import { layout, type PageContext } from "./layout.js";

export const FINDINGS_PER_PAGE = 100;
const MAX_DIFF_LINES = 4000;
const EVENTS_SHOWN = 200;
/**
 * The most recent stages, and the first artifacts, a task page shows unless asked for all
 * (`?all=1`): the live header is fetched again while the task runs, and a run of 20,000 stages
 * made it 5.6 MB.
 */
export const TIMELINE_SHOWN = 300;

export interface TaskPageData {
  detail: TaskDetail;
  diff: string | null;
  /** The first TIMELINE_SHOWN artifacts, or all with `all`, and how many there are. */
  artifacts: ArtifactList;
  findingsPage: number;
  /** The result of the action that led here (shown as text). */
  notice?: string;
  /** The task's pull request on GitHub, when it has one and GitHub is configured. */
  prUrl?: string | null;
  /** Every stage and artifact, not only the last TIMELINE_SHOWN. */
  all?: boolean;
}

export function taskPage(d: TaskPageData, ctx: PageContext): Html {
  const { task } = d.detail;
  return layout(
    `${task.id} ${task.title}`,
    html`<h1><span class="id">${task.id}</span> ${task.title}</h1>
${d.notice ? html`<p class="notice" role="status">${d.notice}</p>` : ""}
${taskHeader(d.detail, ctx, d.prUrl ?? null, d.all === true)}
${taskActions(task, ctx)}
${promptSection(d.detail)}
${findingsSection(d, ctx)}
${diffSection(d.diff, d.detail.findings)}
${artifactsSection(task.id, d.artifacts)}
${eventsSection(d.detail.events)}`,
    { after: ctx.after },
  );
}

/** Status, reason and limits: the live part of the page. */
export function taskHeader(d: TaskDetail, ctx: PageContext, prUrl: string | null = null, all = false): Html {
  const { task, totals } = d;
  const kind = needsKind(task);
  return html`<section id="task-head" data-live="${href("/tasks", task.id)}?fragment=head${all ? "&all=1" : ""}" data-task="${task.id}">
<p>${statusBadge(task.status, task.finalVerdict)}${kind ? html` <em>${kind}</em>` : ""}${task.currentStage ? html` at <code>${task.currentStage}</code>` : ""}</p>
${task.reason ? html`<p class="reason">${task.reason}</p>` : ""}
<dl class="facts">
<dt>type</dt><dd>${task.type}</dd>
<dt>workflow</dt><dd>${task.workflow}</dd>
<dt>branch</dt><dd>${task.branch ?? "(not yet)"} ← ${task.baseBranch}</dd>
<dt>cycles</dt><dd>${task.cycle}/${task.maxCycles}</dd>
<dt>cost</dt><dd>${money(totals.costUsd)}${task.budget.usd !== undefined ? ` of ${money(task.budget.usd)}` : ""}</dd>
<dt>tokens</dt><dd>${totals.tokens.toLocaleString("en")}</dd>
<dt>elapsed</dt><dd>${duration(elapsedOf(task, ctx.now))}</dd>
${pullRequestFact(d, prUrl)}
${task.parentId ? html`<dt>parent</dt><dd><a href="${href("/tasks", task.parentId)}">${task.parentId}</a></dd>` : ""}
</dl>
${stagesTable(d.stages, d.runs, href("/tasks", task.id), all)}
</section>`;
}

/** The PR link and its state (open, merged, closed) as the store knows it: no GitHub call here. */
function pullRequestFact(d: TaskDetail, configuredUrl: string | null): Html | string {
  const pr = pullRequestState(d.task, d.events, d.stages);
  if (pr === null) return "";
  const url = configuredUrl ?? pr.url;
  const link = url ? html`<a href="${url}" rel="noreferrer">#${pr.number}</a>` : html`#${pr.number}`;
  const state =
    pr.state === "unknown"
      ? ""
      : html` <span class="badge pr-${pr.state}">${pr.state}</span>${pr.at === null ? "" : html` <small>as of ${when(pr.at)}</small>`}`;
  return html`<dt>pull request</dt><dd>${link}${state}</dd>`;
}

function promptSection(d: TaskDetail): Html {
  return html`<section><h2>Prompt</h2><div class="md">${renderMarkdown(d.task.prompt)}</div></section>`;
}

/**
 * Each run's stages, the last TIMELINE_SHOWN of them unless `all`: runs whose stages all came
 * before those are left out, and a line says how many and links to the whole timeline.
 */
function stagesTable(stages: StageExecution[], runs: TaskDetail["runs"], page: string, all: boolean): Html {
  const cut = all ? 0 : Math.max(0, stages.length - TIMELINE_SHOWN);
  const shown = cut === 0 ? stages : stages.slice(cut);
  const byRun = groupBy(shown, (s) => s.runId);
  const firstRun = shown[0]?.runId;
  const listed = cut === 0 || firstRun === undefined ? runs : runs.filter((r) => r.id >= firstRun);
  const hiddenRuns = runs.length - listed.length;
  return html`<h2 id="timeline">Timeline</h2>
${runs.length === 0 ? html`<p class="empty">Not started.</p>` : ""}
${cut > 0 ? html`<p class="more">The last ${shown.length.toLocaleString("en")} of ${stages.length.toLocaleString("en")} stages${hiddenRuns > 0 ? ` (${hiddenRuns.toLocaleString("en")} earlier run${hiddenRuns === 1 ? "" : "s"} not shown)` : ""}. <a href="${page}?all=1#timeline">Show every stage</a></p>` : ""}
${listed.map((r) => {
  const mine = byRun.get(r.id) ?? [];
  return html`<h3>Run ${r.id} <small>${r.kind}, ${r.status}${r.finalVerdict ? `, ${r.finalVerdict}` : ""} — started ${when(r.startedAt)}</small></h3>
${r.reason ? html`<p class="reason">${r.reason}</p>` : ""}
<table class="stages"><thead><tr><th>stage</th><th>kind</th><th>cycle</th><th>outcome</th><th>verdict</th><th>duration</th><th>tokens</th><th>cost</th><th>summary</th></tr></thead><tbody>
${mine.map(
  (
    s,
  ) => html`<tr class="o-${s.outcome}"><td>${s.stageId}${s.visit > 1 ? ` #${s.visit}` : ""}</td><td>${s.kind}</td><td>${s.cycle}</td>
<td>${s.outcome}${s.failureClass ? html` <small>(${s.failureClass})</small>` : ""}</td><td>${s.verdict ?? ""}</td>
<td>${duration(s.endedAt - s.startedAt)}</td><td>${totalTokens(s.usage).toLocaleString("en")}</td><td>${money(s.costUsd)}</td>
<td>${s.summary ?? ""}${s.failureReason ? html`<br><small>${s.failureReason}</small>` : ""}</td></tr>`,
)}
</tbody></table>`;
})}`;
}

function findingsSection(d: TaskPageData, ctx: PageContext): Html {
  const all = d.detail.findings;
  const pages = Math.max(1, Math.ceil(all.length / FINDINGS_PER_PAGE));
  const page = Math.min(d.findingsPage, pages);
  const shown = all.slice((page - 1) * FINDINGS_PER_PAGE, page * FINDINGS_PER_PAGE);
  const base = href("/tasks", d.detail.task.id);
  return html`<section id="findings"><h2>Findings <span class="n">${all.length}</span></h2>
${all.length === 0 ? html`<p class="empty">No findings.</p>` : ""}
${shown.map((f) => findingCard(d, f, ctx))}
${pages > 1 ? html`<nav class="pager">${page > 1 ? html`<a href="${base}?fpage=${page - 1}#findings">← previous</a>` : ""} page ${page} of ${pages} ${page < pages ? html`<a href="${base}?fpage=${page + 1}#findings">next →</a>` : ""}</nav>` : ""}
</section>`;
}

export function findingCard(d: Pick<TaskPageData, "detail">, f: Finding, ctx: PageContext): Html {
  return html`<article class="finding sev-${f.severity} st-${f.status}" id="finding-${f.id}">
<header><strong>${f.id}</strong> <span class="badge">${f.severity}</span> <span class="badge st">${f.status}</span> <span class="ftitle">${f.title}</span>
${f.file ? html`<code class="loc">${f.file}${f.lineStart !== null ? `:${f.lineStart}` : ""}${f.lineEnd !== null && f.lineEnd !== f.lineStart ? `-${f.lineEnd}` : ""}</code>` : ""}</header>
<div class="md">${renderMarkdown(f.body)}</div>
${f.suggestedFix ? html`<details><summary>suggested fix</summary><div class="md">${renderMarkdown(f.suggestedFix)}</div></details>` : ""}
<ul class="history">
<li>raised by ${f.sources.map((s, i) => html`${i > 0 ? ", " : ""}<code>${s.source}</code>${s.author ? ` (${s.author})` : ""} in cycle ${s.cycle}`)}; cycles ${f.firstCycle}–${f.lastCycle}${f.timesReopened > 0 ? `, reopened ${f.timesReopened}×` : ""}</li>
${f.attempts.map(
  (a) =>
    html`<li>cycle ${a.cycle}: fixer said <strong>${a.status}</strong>${a.justification ? html` — ${a.justification}` : ""}${a.commitSha ? html` <code>${a.commitSha.slice(0, 8)}</code>` : ""}${a.rejection ? html` <em>(rejected: ${a.rejection})</em>` : ""}</li>`,
)}
${f.note ? html`<li>verification: ${f.note}</li>` : ""}
</ul>
${findingActions(d.detail.task, f, ctx)}
</article>`;
}

function diffSection(diff: string | null, findings: Finding[]): Html {
  if (diff === null)
    return html`<section id="diff"><h2>Diff</h2><p class="empty">The task's branch does not exist yet.</p></section>`;
  if (diff.trim() === "")
    return html`<section id="diff"><h2>Diff</h2><p class="empty">No changes against the base.</p></section>`;
  const byLine = groupBy(findings, (f) =>
    f.file === null || f.lineStart === null ? undefined : `${f.file}:${f.lineStart}`,
  );
  const files = parseUnifiedDiff(diff);
  let budget = MAX_DIFF_LINES;
  const total = files.reduce((n, f) => n + f.lines.length, 0);
  return html`<section id="diff"><h2>Diff <small>${files.length} files</small></h2>
${files.map((file) => {
  const lines = file.lines.slice(0, Math.max(0, budget));
  budget -= lines.length;
  return lines.length === 0 ? "" : diffFile({ ...file, lines }, byLine);
})}
${total > MAX_DIFF_LINES ? html`<p class="empty">Diff truncated: ${MAX_DIFF_LINES} of ${total} lines shown.</p>` : ""}
</section>`;
}

function diffFile(file: DiffFile, byLine: Map<string, Finding[]>): Html {
  return html`<div class="diff-file"><h3><code>${file.path ?? "(diff)"}</code></h3><pre class="diff">${file.lines.map(
    (l) => {
      const here =
        l.newLine !== null && file.path !== null ? (byLine.get(`${file.path}:${l.newLine}`) ?? []) : [];
      return html`<span class="l ${l.kind}"><span class="ln">${l.newLine ?? ""}</span>${l.text}</span>${here.map(
        (f) =>
          html`<a class="at-line sev-${f.severity}" href="#finding-${f.id}">▲ ${f.id} [${f.severity}] ${f.title} — ${f.status}</a>`,
      )}`;
    },
  )}</pre></div>`;
}

/** The review files, then the transcripts by name: those listed, and a link to all when there are more. */
function artifactsSection(taskId: string, { artifacts, total }: ArtifactList): Html {
  const more = total - artifacts.length;
  return html`<section id="artifacts"><h2>Artifacts and transcripts</h2>
${total === 0 ? html`<p class="empty">None yet.</p>` : ""}
<ul>${artifacts.map((a) => html`<li><a href="${href("/tasks", taskId, "artifacts", a.name)}">${a.name}</a> <small>${a.kind}, ${a.bytes.toLocaleString("en")} bytes</small></li>`)}</ul>
${more > 0 ? html`<p class="more">${more.toLocaleString("en")} more. <a href="${href("/tasks", taskId)}?all=1#artifacts">Show every artifact</a></p>` : ""}
</section>`;
}

function eventsSection(events: TaskEvent[]): Html {
  const shown = events.slice(-EVENTS_SHOWN);
  return html`<section id="events"><h2>Events <small>${events.length > shown.length ? `last ${shown.length} of ${events.length}` : String(events.length)}</small></h2>
<ol class="events">${shown.map((e) => html`<li><time>${when(e.ts)}</time> <code>${e.type}</code> ${eventData(e)}</li>`)}</ol>
</section>`;
}

export function eventData(e: TaskEvent): string {
  return Object.entries(e.data)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ")
    .slice(0, 500);
}
