import { isAbsolute, join, resolve } from "node:path";
import type { Store } from "../domain/store.js";
import { FixpointError } from "../errors.js";
import { redactingStore } from "./redacting.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";

/** Where the default SQLite store lives inside a project. */
export function defaultSqlitePath(projectRoot: string): string {
  return join(projectRoot, ".fixpoint", "fixpoint.db");
}

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec.trim());
}

/**
 * Resolves the configured `database` (or FIXPOINT_DATABASE_URL) to a Store:
 * - `sqlite` → `<projectRoot>/.fixpoint/fixpoint.db`;
 * - a path ending in `.db` (optionally prefixed `sqlite:`) → that file (relative paths are taken
 *   from the project root);
 * - `postgres://…` / `postgresql://…` → the PostgreSQL store (schema created or migrated on open).
 */
export async function openStore(url: string, projectRoot: string): Promise<Store> {
  // Every write passes the redactor: a secret an agent or gate printed never reaches the database.
  return redactingStore(await openRawStore(url, projectRoot));
}

async function openRawStore(url: string, projectRoot: string): Promise<Store> {
  const spec = url.trim();
  if (spec === "sqlite") return openSqliteStore(defaultSqlitePath(projectRoot));
  if (isPostgresUrl(spec)) {
    // Loaded only when used: `pg` costs a SQLite project's every command (`status` included) ~20 ms.
    const { openPostgresStore } = await import("./postgres/postgres-store.js");
    return openPostgresStore(spec);
  }
  const file = spec.startsWith("sqlite:") ? spec.slice("sqlite:".length) : spec;
  if (file.endsWith(".db")) return openSqliteStore(isAbsolute(file) ? file : resolve(projectRoot, file));
  throw new FixpointError(
    "config",
    `unknown database "${url}": use "sqlite", a file path ending in .db, or a postgres:// URL`,
  );
}
