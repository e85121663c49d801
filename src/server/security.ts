import { randomBytes, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";

/**
 * No inline script or style anywhere: scripts and styles come from /assets only, so text that
 * slipped through escaping still could not run.
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("Content-Security-Policy", CSP);
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  c.res.headers.set("Referrer-Policy", "no-referrer");
  c.res.headers.set("X-Frame-Options", "DENY");
  c.res.headers.set("Cache-Control", "no-store");
};

export function newSecret(): string {
  return randomBytes(24).toString("base64url");
}

export function sameSecret(given: string | undefined | null, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const TOKEN_COOKIE = "fixpoint_token";

/**
 * The access token a non-loopback server requires: `Authorization: Bearer <token>`, the cookie
 * set on the first visit, or `?token=` on that first visit (which sets the cookie and redirects to
 * the same URL without the token, so it does not stay in the address bar). Anything else is 401.
 */
export function requireToken(token: string): MiddlewareHandler {
  return async (c, next) => {
    const auth = c.req.header("authorization");
    const bearer = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
    if (sameSecret(bearer, token) || sameSecret(getCookie(c, TOKEN_COOKIE), token)) return next();
    const query = c.req.query("token");
    if (sameSecret(query, token) && c.req.method === "GET") {
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/" });
      const url = new URL(c.req.url);
      url.searchParams.delete("token");
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    return c.text(
      "401 Unauthorized: this dashboard needs its access token (printed by `fixpoint serve`).\n",
      401,
    );
  };
}

/**
 * DNS rebinding: a page on another site whose name resolves to 127.0.0.1 would reach a
 * loopback server under its own name. A loopback server answers only Host headers naming a
 * loopback address.
 */
export const requireLoopbackHost: MiddlewareHandler = async (c, next) => {
  const host = c.req.header("host") ?? new URL(c.req.url).host;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  if (name === "localhost" || name === "[::1]" || /^127(\.\d{1,3}){3}$/.test(name ?? "")) return next();
  return c.text(`421 Misdirected Request: this dashboard answers on loopback names only, not ${host}\n`, 421);
};

/**
 * State changes are POSTs carrying the server's CSRF token in the `_csrf` form field (or the
 * `X-CSRF-Token` header); a cross-site Origin is refused as well.
 */
export function requireCsrf(csrf: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    const origin = c.req.header("origin");
    if (origin !== undefined && origin !== "null") {
      if (originHost(origin) !== (c.req.header("host") ?? new URL(c.req.url).host))
        return c.text("403 Forbidden: cross-site request\n", 403);
    }
    let given = c.req.header("x-csrf-token");
    if (given === undefined) {
      const type = c.req.header("content-type") ?? "";
      if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) {
        const body = await c.req.parseBody();
        given = typeof body._csrf === "string" ? body._csrf : undefined;
      }
    }
    if (!sameSecret(given, csrf)) {
      return c.text("403 Forbidden: missing or wrong CSRF token; reload the page and try again\n", 403);
    }
    return next();
  };
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}
