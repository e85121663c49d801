import type { Context } from "hono";
import { errorMessage, FixpointError } from "../errors.js";
import { withEnvReadOnce } from "../util/redact.js";
import type { DashboardApi } from "./api.js";
import type { Html } from "./html.js";
import { badRequestPage, notFoundPage, storeErrorPage } from "./pages/errors.js";
import type { PageContext } from "./pages/layout.js";

/** What the page and action routes get from the app. */
export interface RouteDeps {
  api: DashboardApi;
  ctx: (withAfter: boolean) => Promise<PageContext>;
}

/**
 * Responds with a page. Given as a function, the page is built with the environment read once
 * for all the redactions its text goes through (a task page redacts a few strings per stage:
 * reading the environment for each was most of a 2,000-stage page's time).
 */
export function page(c: Context, body: Html | (() => Html), status: 200 | 400 | 404 | 503 = 200) {
  return c.html((typeof body === "function" ? withEnvReadOnce(body) : body).value, status);
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
