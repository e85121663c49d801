import { Hono } from "hono";
import type { DashboardApi } from "./api.js";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets.js";
import { type LiveOptions, liveEvents } from "./live.js";
import { notFoundPage } from "./pages/errors.js";
import { errorResponse, page, type RouteDeps } from "./respond.js";
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
