import type { Context, Hono } from "hono";
import { FixpointError } from "../errors.js";
import type { ActionResult, DashboardApi } from "./api.js";
import { href } from "./html.js";
import { optionalText, parseCount, parseUsd, parseVerdict, requireText } from "./query.js";
import type { RouteDeps } from "./respond.js";

type Form = Record<string, string | undefined>;
type Action = (api: DashboardApi, base: { taskId: string }, form: Form) => Promise<ActionResult>;

/** Each action: read and validate the form (400 with the reason), then call one use case. */
const TASK_ACTIONS: Record<string, Action> = {
  approve: (api, b, f) => api.approve({ ...b, note: optionalText("note", f.note) }),
  reject: (api, b, f) => api.reject({ ...b, note: requireText("a reason to reject", f.note) }),
  cancel: (api, b) => api.cancel(b),
  resume: (api, b, f) => api.resume({ ...b, feedback: optionalText("feedback", f.feedback) }),
  retry: (api, b) => api.retry(b),
  verdict: (api, b, f) => api.editTask({ ...b, verdict: parseVerdict(requireText("verdict", f.verdict)) }),
  limits: (api, b, f) => {
    const budgetUsd = parseUsd("budget", f.budget);
    const maxCycles = parseCount("max cycles", f.maxCycles, 1000);
    if (budgetUsd === undefined && maxCycles === undefined) {
      throw new FixpointError("usage", "give a budget in USD or a number of max cycles");
    }
    return api.editTask({ ...b, budgetUsd, maxCycles, requeue: f.requeue === "1" || f.requeue === "on" });
  },
};

const FINDING_ACTIONS: Record<string, "deferFinding" | "reopenFinding"> = {
  defer: "deferFinding",
  reopen: "reopenFinding",
};

async function readForm(c: Context): Promise<Form> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data")) {
    throw new FixpointError("usage", "an action is a form POST (application/x-www-form-urlencoded)");
  }
  const body = await c.req.parseBody();
  const form: Form = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") form[k] = v;
  return form;
}

/** Form posts are answered with a redirect to the task page (303), JSON callers with the result. */
function done(c: Context, result: ActionResult) {
  if ((c.req.header("accept") ?? "").includes("application/json")) return c.json(result);
  return c.redirect(`${href("/tasks", result.taskId)}?done=${encodeURIComponent(result.message)}`, 303);
}

export function actionRoutes(app: Hono, { api }: RouteDeps): void {
  app.post("/tasks/:id/findings/:fid/:action", async (c) => {
    const method = FINDING_ACTIONS[c.req.param("action")];
    if (!method)
      throw new FixpointError(
        "usage",
        `unknown finding action \`${c.req.param("action")}\` (defer or reopen)`,
      );
    const form = await readForm(c);
    const justification = requireText("a justification", form.justification);
    const result = await api[method]({
      taskId: c.req.param("id"),

      findingId: c.req.param("fid"),
      justification,
    });
    return done(c, result);
  });

  app.post("/tasks/:id/:action", async (c) => {
    const action = TASK_ACTIONS[c.req.param("action")];
    if (!action) {
      throw new FixpointError(
        "usage",
        `unknown action \`${c.req.param("action")}\` (one of ${Object.keys(TASK_ACTIONS).join(", ")})`,
      );
    }
    const form = await readForm(c);
    return done(c, await action(api, { taskId: c.req.param("id") }, form));
  });
}
