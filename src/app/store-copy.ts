/**
 * `fixpoint store copy --from sqlite:.fixpoint/fixpoint.db --to postgres://…`: moves a project's
 * history from its SQLite file into a PostgreSQL database (empty: a non-empty one is refused).
 */
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { FixpointError } from "../errors.js";
import { type CopyCounts, copySqliteToPostgres } from "../store/copy.js";
import { isPostgresUrl } from "../store/open.js";

/** `sqlite:<path>`, a path ending in .db, or `sqlite` (the project default): the file's absolute path. */
export function sqlitePathOf(spec: string, cwd: string): string | null {
  const s = spec.trim();
  if (s === "sqlite") return resolve(cwd, ".fixpoint", "fixpoint.db");
  const path = s.startsWith("sqlite:") ? s.slice("sqlite:".length) : s;
  if (!path.endsWith(".db") || isPostgresUrl(path)) return null;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

export interface StoreCopyResult {
  from: string;
  counts: CopyCounts;
}

export async function copyStore(from: string, to: string, cwd: string): Promise<StoreCopyResult> {
  const source = sqlitePathOf(from, cwd);
  if (source === null) {
    throw new FixpointError("usage", `--from must be a SQLite store (sqlite:<file>.db), got "${from}"`);
  }
  if (!isPostgresUrl(to)) {
    throw new FixpointError(
      "usage",
      `--to must be a postgres:// or postgresql:// URL, got "${to.replace(/:[^:@/]*@/, ":***@")}"`,
    );
  }
  if (!existsSync(source)) throw new FixpointError("usage", `--from: no SQLite store at ${source}`);
  return { from: source, counts: await copySqliteToPostgres(source, to.trim()) };
}
