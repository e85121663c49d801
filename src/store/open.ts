import { isAbsolute, join, resolve } from "node:path";
import type { Store } from "../domain/store.js";
import { FixpointError } from "../errors.js";
import { redactingStore } from "./redacting.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";

/** Where the default SQLite store lives inside a project. */
export function defaultSqlitePath(projectRoot: string): string {
  return join(projectRoot, ".fixpoint", "fixpoint.db");
}

/**
 * Resolves the configured `database` (or FIXPOINT_DATABASE_URL) to a Store:
 * - `sqlite` → `<projectRoot>/.fixpoint/fixpoint.db`;
 * - a path ending in `.db` → that file (relative paths are taken from the project root);
 * - `postgres://…` / `postgresql://…` → not available yet.
 */
export async function openStore(url: string, projectRoot: string): Promise<Store> {
  // Every write passes the redactor: a secret an agent or gate printed never reaches the database.
  return redactingStore(await openRawStore(url, projectRoot));
}

async function openRawStore(url: string, projectRoot: string): Promise<Store> {
  const spec = url.trim();
  if (spec === "sqlite") return openSqliteStore(defaultSqlitePath(projectRoot));
  if (/^postgres(ql)?:\/\//i.test(spec)) {
    throw new FixpointError(
      "config",
      'PostgreSQL support is not built yet; use database "sqlite" (the default) for now',
    );
  }
  if (spec.endsWith(".db")) return openSqliteStore(isAbsolute(spec) ? spec : resolve(projectRoot, spec));
  throw new FixpointError(
    "config",
    `unknown database "${url}": use "sqlite", a file path ending in .db, or a postgres:// URL`,
  );
}
