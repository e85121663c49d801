import type { Context, Hono } from "hono";
import { html } from "./html.js";
import { artifactPage } from "./pages/artifact.js";
import { FINDINGS_PAGE_SIZE, findingsPage } from "./pages/findings.js";
import { homePage, loadMorningReport, reportSection } from "./pages/home.js";
import { TIMELINE_SHOWN, taskHeader, taskPage } from "./pages/task.js";
import { TASKS_PER_PAGE, tasksPage } from "./pages/tasks.js";
import { parseCount, parseFindingStatus, parseSeverity, parseSince, parseTaskStatus } from "./query.js";
import { page, type RouteDeps } from "./respond.js";

const ARTIFACT_CHUNK = 256 * 1024;

/** Fragment requests (dashboard.js's live refresh) get only the named region, no page frame. */
function fragment(c: Context, name: string): boolean {
  return c.req.query("fragment") === name;
}

function blank(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

export function pageRoutes(app: Hono, { api, ctx }: RouteDeps): void {
  app.get("/", async (c) => {
    const context = await ctx(!fragment(c, "report"));
    const { since, label } = parseSince(c.req.query("since"), context.now);
    const report = await loadMorningReport(api, since, label);
    if (fragment(c, "report")) return page(c, () => reportSection(report, context));
    return page(c, () => homePage(report, context));
  });

  app.get("/tasks", async (c) => {
    const context = await ctx(true);
    const statusText = blank(c.req.query("status"));
    const sinceText = blank(c.req.query("since"));
    const status = statusText === undefined ? undefined : parseTaskStatus(statusText);
    const since = sinceText === undefined ? undefined : parseSince(sinceText, context.now).since;
    const before = parseCount("before", c.req.query("before"));
    const statuses = status ? [status] : undefined;
    const [tasks, total] = await Promise.all([
      api.status({ statuses, since, limit: TASKS_PER_PAGE, beforeSeq: before }),
      api.countTasks({ statuses, since }),
    ]);
    return page(c, () => tasksPage(tasks, { status, since: sinceText, total }, context));
  });

  app.get("/tasks/:id", async (c) => {
    const id = c.req.param("id");
    const head = fragment(c, "head");
    const context = await ctx(!head);
    const detail = await api.show(id);
    const prNumber = detail.task.meta.prNumber;
    const prUrl = prNumber === undefined ? null : api.pullRequestUrl(prNumber);
    const all = c.req.query("all") === "1";
    if (head) return page(c, () => taskHeader(detail, context, prUrl, all));
    const findingsPage = parseCount("fpage", c.req.query("fpage")) ?? 1;
    const [diff, artifacts] = await Promise.all([
      api.diff(id),
      api.artifacts(id, all ? undefined : TIMELINE_SHOWN),
    ]);
    const notice = blank(c.req.query("done"))?.slice(0, 500);
    return page(c, () =>
      taskPage(
        { detail, diff, artifacts, findingsPage: Math.max(1, findingsPage), notice, prUrl, all },
        context,
      ),
    );
  });

  app.get("/tasks/:id/artifacts/:name", async (c) => {
    const id = c.req.param("id");
    const name = c.req.param("name");
    const offset = parseCount("offset", c.req.query("offset")) ?? 0;
    const chunk = await api.readArtifact(id, name, offset, ARTIFACT_CHUNK);
    return page(c, () => artifactPage(id, name, chunk, ARTIFACT_CHUNK));
  });

  app.get("/findings", async (c) => {
    const context = await ctx(true);
    const q = {
      status: blank(c.req.query("status")),
      severity: blank(c.req.query("severity")),
      reviewer: blank(c.req.query("reviewer")),
      file: blank(c.req.query("file")),
      page: Math.max(1, parseCount("page", c.req.query("page"), 1_000_000) ?? 1),
    };
    const findings = await api.findings({
      statuses: q.status ? [parseFindingStatus(q.status)] : undefined,
      severities: q.severity ? [parseSeverity(q.severity)] : undefined,
      reviewer: q.reviewer,
      file: q.file,
      limit: FINDINGS_PAGE_SIZE,
      offset: (q.page - 1) * FINDINGS_PAGE_SIZE,
    });
    return page(c, () => findingsPage(findings, q, context));
  });

  app.get("/healthz", (c) => page(c, html`ok`));
}
