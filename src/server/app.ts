import { type Context, Hono } from "hono";
import { errorMessage, FixpointError } from "../errors.js";
import type { DashboardApi } from "./api.js";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets.js";
import type { Html } from "./html.js";
import { type LiveOptions, liveEvents } from "./live.js";
import { badRequestPage, notFoundPage, storeErrorPage } from "./pages/errors.js";
import type { PageContext } from "./pages/layout.js";
import { actionRoutes } from "./routes-actions.js";
import { pageRoutes } from "./routes-pages.js";
import { requireCsrf, requireLoopbackHost, requireToken, securityHeaders } from "./security.js";

export interface DashboardOptions {
  api: DashboardApi;
  /** CSRF token of every form; random per server when omitted. */
  csrf: string;
  /** Access token required on every request (non-loopback servers); none on loopback. */
  token?: string;
  /** A loopback server answers only Host headers naming a loopback address (DNS rebinding). */
  loopbackOnly?: boolean;
  now?: () => number;
  live?: LiveOptions;
}

export interface RouteDeps {
  api: DashboardApi;
  ctx: (withAfter: boolean) => Promise<PageContext>;
}

/** The dashboard as a Hono app: security middleware, pages, actions, the live feed, errors. */
export function createDashboard(opts: DashboardOptions): Hono {
  const app = new Hono();
  const now = opts.now ?? Date.now;
  app.use(securityHeaders);
  if (opts.token !== undefined) app.use(requireToken(opts.token));
  if (opts.loopbackOnly) app.use(requireLoopbackHost);
  app.use(requireCsrf(opts.csrf));

  app.get("/assets/dashboard.js", (c) =>
    c.body(DASHBOARD_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  app.get("/assets/dashboard.css", (c) =>
    c.body(DASHBOARD_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }),
  );
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/events", liveEvents(opts.api, opts.live));

  const deps: RouteDeps = {
    api: opts.api,
    ctx: async (withAfter) => ({
      csrf: opts.csrf,
      now: now(),
      after: withAfter ? await opts.api.lastEventId() : undefined,
    }),
  };
  pageRoutes(app, deps);
  actionRoutes(app, deps);

  app.notFound((c) => page(c, notFoundPage(`Nothing at ${c.req.path}.`), 404));
  app.onError((err, c) => errorResponse(c, err));
  return app;
}

export function page(c: Context, body: Html, status: 200 | 400 | 404 | 503 = 200) {
  return c.html(body.value, status);
}

/**
 * Errors become pages a person can act on, never a stack trace: unknown ids 404 with a link
 * home, malformed requests 400 with the reason, a locked or unreachable store 503 with a banner
 * that retries.
 */
export function errorResponse(c: Context, err: unknown) {
  const json = (c.req.header("accept") ?? "").includes("application/json");
  const code = err instanceof FixpointError ? err.code : "internal";
  const message = errorMessage(err);
  const status = code === "not_found" ? 404 : code === "usage" ? 400 : code.startsWith("store") ? 503 : 500;
  if (json) return c.json({ error: { code, message } }, status);
  if (status === 404) return page(c, notFoundPage(message), 404);
  if (status === 400) return page(c, badRequestPage(message), 400);
  if (status === 503) return page(c, storeErrorPage(message), 503);
  console.error(`fixpoint serve: ${c.req.method} ${c.req.path}: ${message}`);
  return c.text(
    "500 Internal Server Error: the dashboard hit an unexpected error (see the server's output).\n",
    500,
  );
}
