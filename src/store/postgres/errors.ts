import { errorMessage, FixpointError } from "../../errors.js";

/** Where the database URL can be changed, named in every connection error. */
export const DATABASE_SETTING =
  'database "postgres://…" in fixpoint.kdl, FIXPOINT_DATABASE_URL or --database';

/** The URL without its password, for messages. Unparsable input is shown as "the database". */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    const socket = u.searchParams.get("host");
    const where = socket?.startsWith("/") ? `${u.username || "?"}@${socket}` : u.host;
    return `postgres://${where}${u.pathname}`;
  } catch {
    return "the database";
  }
}

function field(e: unknown, name: string): string | null {
  if (typeof e !== "object" || e === null || !(name in e)) return null;
  const v: unknown = Reflect.get(e, name);
  return typeof v === "string" ? v : null;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENOENT",
]);
const LOST_CODES = new Set(["ECONNRESET", "EPIPE", "57P01", "57P02", "57P03", "08000", "08003", "08006"]);

/**
 * True when the connection failed or dropped (the server is down, restarting or unreachable), so
 * trying again later can help. Not for errors the server raised on a statement.
 */
export function isConnectionError(e: unknown): boolean {
  const code = field(e, "code");
  if (code !== null && (CONNECTION_CODES.has(code) || LOST_CODES.has(code))) return true;
  const message = errorMessage(e);
  return /Connection terminated|connection timeout|Client has encountered a connection error|Query read timeout/i.test(
    message,
  );
}

/**
 * Turns whatever node-postgres threw into one FixpointError with one line naming the cause and
 * the setting to change. A FixpointError passes through unchanged (raised on purpose).
 */
export function toPgStoreError(e: unknown, url: string, action: string): FixpointError {
  if (e instanceof FixpointError) return e;
  const where = describeUrl(url);
  const code = field(e, "code");
  const detail = errorMessage(e).split("\n")[0] ?? "";
  if (code === "28P01" || code === "28000") {
    return new FixpointError(
      "config",
      `PostgreSQL refused the login at ${where} (${detail}); fix the user or password in ${DATABASE_SETTING}`,
      { cause: e },
    );
  }
  if (code === "3D000") {
    return new FixpointError(
      "config",
      `the database at ${where} does not exist (${detail}); create it or fix ${DATABASE_SETTING}`,
      { cause: e },
    );
  }
  if (code !== null && CONNECTION_CODES.has(code)) {
    return new FixpointError(
      "store",
      `cannot reach PostgreSQL at ${where} (${code}) while ${action}; start the server or fix ${DATABASE_SETTING}`,
      { cause: e, retryable: true },
    );
  }
  if (isConnectionError(e)) {
    return new FixpointError(
      "store",
      `lost the connection to PostgreSQL at ${where} while ${action} (${detail}); fixpoint reconnects with backoff, and a write cut off this way is not repeated`,
      { cause: e, retryable: true },
    );
  }
  return new FixpointError("store", `${action} failed on ${where}: ${detail}`, { cause: e });
}
