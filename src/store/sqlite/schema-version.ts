import { FixpointError } from "../../errors.js";
import type { SqliteDatabase } from "./connection.js";
import { LATEST_SCHEMA_VERSION } from "./migrations/latest.js";

/** The schema version a database file was migrated to (its `user_version`). */
export function schemaVersion(db: SqliteDatabase): number {
  const v: unknown = db.pragma("user_version", { simple: true });
  return typeof v === "number" ? v : 0;
}

export function refuseNewer(path: string, version: number, latest: number): FixpointError {
  return new FixpointError(
    "store_version",
    `the database ${path} has schema version ${version}, which is newer than this fixpoint (${latest}); upgrade fixpoint to use it`,
  );
}

/**
 * True when the database is at this fixpoint's schema version, false when it needs migrating;
 * throws store_version for a database written by a newer fixpoint. Reads one pragma: the common
 * case of every command.
 */
export function isCurrentSchema(db: SqliteDatabase, path: string): boolean {
  const seen = schemaVersion(db);
  if (seen > LATEST_SCHEMA_VERSION) throw refuseNewer(path, seen, LATEST_SCHEMA_VERSION);
  return seen === LATEST_SCHEMA_VERSION;
}
