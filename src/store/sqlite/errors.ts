import { errorMessage, FixpointError } from "../../errors.js";

/** SQLite result codes that mean "another connection holds the lock" (extended codes included). */
function isBusy(code: string): boolean {
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED");
}

function sqliteCode(e: unknown): string | null {
  if (typeof e !== "object" || e === null || !("code" in e)) return null;
  const code = e.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : null;
}

/** Whether better-sqlite3 threw because another connection holds the lock. */
export function isBusyError(e: unknown): boolean {
  const code = sqliteCode(e);
  return code !== null && isBusy(code);
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))}s`;
}

/**
 * Turns whatever better-sqlite3 threw into the one error a caller handles. Busy past the
 * timeout is retryable (another process will let go); everything else is a `store` failure.
 * A FixpointError passes through unchanged: it was raised on purpose inside a transaction.
 */
export function toStoreError(e: unknown, path: string, busyTimeoutMs: number, action: string): FixpointError {
  if (e instanceof FixpointError) return e;
  const code = sqliteCode(e);
  if (code !== null && isBusy(code)) {
    return new FixpointError(
      "store_locked",
      `the database ${path} is locked by another process (waited ${formatSeconds(busyTimeoutMs)})`,
      { cause: e, retryable: true },
    );
  }
  if (code === "SQLITE_NOTADB") {
    return new FixpointError("store", `${path} is not a fixpoint database (${errorMessage(e)})`, {
      cause: e,
    });
  }
  return new FixpointError("store", `${action} failed on ${path}: ${errorMessage(e)}`, { cause: e });
}
