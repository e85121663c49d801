import { FINAL_VERDICTS, type Finding, isActiveTask, type Task } from "../../domain/types.js";
import { type Html, href, html } from "../html.js";
import { csrfField, type PageContext } from "./layout.js";

/**
 * The task page's action forms, offered only when the task's state allows them. Each is a POST
 * with the CSRF token; destructive ones carry `data-confirm`, which dashboard.js asks about.
 */
export function taskActions(task: Task, ctx: PageContext): Html {
  const url = (action: string) => href("/tasks", task.id, action);
  const waitingHuman =
    task.status === "needs_human" && task.currentStage !== null && task.finalVerdict === null;
  const active = isActiveTask(task.status);
  const forms: Html[] = [];
  if (waitingHuman) {
    forms.push(html`<form method="post" action="${url("approve")}" class="action">${csrfField(ctx)}
<label>Note <input name="note" maxlength="4000" placeholder="optional"></label>
<button type="submit" name="do" value="approve">Approve ${task.currentStage ?? ""}</button></form>`);
    forms.push(html`<form method="post" action="${url("reject")}" class="action" data-confirm="Reject ${task.id} at ${task.currentStage ?? ""}?">${csrfField(ctx)}
<label>Why <input name="note" required maxlength="4000"></label>
<button type="submit" class="danger">Reject</button></form>`);
  }
  if (!active) {
    forms.push(html`<form method="post" action="${url("resume")}" class="action">${csrfField(ctx)}
<label>Feedback <input name="feedback" maxlength="4000" placeholder="optional"></label>
<button type="submit">Resume</button></form>`);
    forms.push(html`<form method="post" action="${url("retry")}" class="action" data-confirm="Start a new run of ${task.id} with fresh agent sessions?">${csrfField(ctx)}
<button type="submit">Retry</button></form>`);
    forms.push(html`<form method="post" action="${url("limits")}" class="action">${csrfField(ctx)}
<label>Budget USD <input name="budget" inputmode="decimal" value="${task.budget.usd ?? ""}" size="6"></label>
<label>Max cycles <input name="maxCycles" inputmode="numeric" value="${task.maxCycles}" size="3"></label>
<label><input type="checkbox" name="requeue" value="1" checked> requeue</label>
<button type="submit">Raise limits</button></form>`);
    forms.push(html`<form method="post" action="${url("verdict")}" class="action" data-confirm="Override the final verdict of ${task.id}?">${csrfField(ctx)}
<label>Verdict <select name="verdict">${FINAL_VERDICTS.map((v) => html`<option${v === task.finalVerdict ? html` selected` : ""}>${v}</option>`)}</select></label>
<button type="submit">Set verdict</button></form>`);
  }
  if (task.status !== "completed" && task.status !== "cancelled") {
    forms.push(html`<form method="post" action="${url("cancel")}" class="action" data-confirm="Cancel ${task.id}? A running stage is stopped.">${csrfField(ctx)}
<button type="submit" class="danger">Cancel task</button></form>`);
  }
  return forms.length === 0 ? html`` : html`<section class="actions"><h2>Actions</h2>${forms}</section>`;
}

export function findingActions(task: Task, f: Finding, ctx: PageContext): Html {
  if (task.status === "running") return html``;
  const defer = f.status === "open" || f.status === "blocked";
  const action = defer ? "defer" : f.status === "open" ? null : "reopen";
  if (action === null) return html``;
  return html`<form method="post" action="${href("/tasks", task.id, "findings", f.id, action)}" class="action inline"${defer ? html` data-confirm="Defer ${f.id}?"` : ""}>${csrfField(ctx)}
<input name="justification" required maxlength="4000" placeholder="justification">
<button type="submit">${defer ? "Defer" : "Reopen"}</button></form>`;
}
