import { isAbsolute, resolve } from "node:path";
import { loadConfig } from "../../config/load.js";
import type { Config } from "../../config/types.js";
import type { Git } from "../../domain/git.js";
import { errorMessage, FixpointError } from "../../errors.js";
import type { GitRunner } from "../../git/exec.js";
import { defaultSqlitePath, openStore } from "../../store/open.js";
import { describeUrl } from "../../store/postgres/errors.js";
import { openDatabase } from "../../store/sqlite/connection.js";
import { LATEST_SCHEMA_VERSION } from "../../store/sqlite/migrations/latest.js";
import { NATIVE_SPAWNER_PATH } from "../../util/native-spawn.js";
import { nativeStarter } from "../../util/spawner.js";
import type { Check } from "./check.js";

/** Checks of what every command needs: git, the repository, the config and the store. */

export async function checkGit(git: GitRunner, cwd: string): Promise<Check> {
  try {
    const r = await git.run(cwd, ["--version"], { timeoutMs: 15_000 });
    return { name: "git", status: "ok", detail: r.stdout.trim() };
  } catch (e) {
    if (e instanceof FixpointError && e.code === "environment") {
      return {
        name: "git",
        status: "fail",
        detail: "not found",
        fix: "install git and make sure it is on PATH",
      };
    }
    return { name: "git", status: "fail", detail: errorMessage(e), fix: "repair the git installation" };
  }
}

/**
 * How agents and git are started (src/util/spawner.ts): posix_spawn by fixpoint's native starter
 * costs the same from a worker of any size; a fork by Node costs more the more the worker holds.
 */
export function checkChildStarter(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Check {
  const name = "child processes";
  const setting = env.FIXPOINT_SPAWN_HELPER;
  if (setting === "0" || setting === "1")
    return {
      name,
      status: "ok",
      detail: `forked by Node${setting === "1" ? " from a helper process" : ""} (FIXPOINT_SPAWN_HELPER=${setting})`,
    };
  if (nativeStarter(setting) !== null)
    return { name, status: "ok", detail: `started with posix_spawn (${NATIVE_SPAWNER_PATH})` };
  if (platform !== "linux") return { name, status: "ok", detail: "forked by Node" };
  return {
    name,
    status: "warn",
    detail: `forked by Node: the native starter ${NATIVE_SPAWNER_PATH} is not built, so each agent and git call costs more the more memory the worker holds`,
    fix: "run `npm run build:native` in fixpoint's folder (it needs g++, make and python3)",
  };
}

export async function checkRepository(git: Git, cwd: string): Promise<{ check: Check; root: string | null }> {
  try {
    const root = await git.repoRoot(cwd);
    if (!root) {
      return {
        root: null,
        check: {
          name: "repository",
          status: "fail",
          detail: `${cwd} is not inside a git repository`,
          fix: "run fixpoint from your project's checkout (or `git init` first)",
        },
      };
    }
    const branch = await git.currentBranch(root);
    return {
      root,
      check: { name: "repository", status: "ok", detail: `${root}${branch ? ` (branch ${branch})` : ""}` },
    };
  } catch (e) {
    return {
      root: null,
      check: {
        name: "repository",
        status: "fail",
        detail: errorMessage(e),
        fix: "check that git can read this folder",
      },
    };
  }
}

export async function checkConfig(
  root: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ check: Check; config: Config | null }> {
  try {
    const config = await loadConfig({ projectRoot: root, env, cwd });
    const files = config.sources.length
      ? config.sources.join(", ")
      : "built-in defaults (no fixpoint.kdl; `fixpoint init` writes one)";
    const agents = Object.keys(config.agents).length;
    const detail = `${files} · ${agents} agent${agents === 1 ? "" : "s"} · ${config.gates.length} gate${config.gates.length === 1 ? "" : "s"}`;
    return { config, check: { name: "config", status: "ok", detail } };
  } catch (e) {
    return {
      config: null,
      check: {
        name: "config",
        status: "fail",
        detail: errorMessage(e),
        fix: "correct the file and line named above (docs/configuration.md lists every key)",
      },
    };
  }
}

function sqlitePath(url: string, root: string): string | null {
  const spec = url.trim();
  if (spec === "sqlite") return defaultSqlitePath(root);
  if (spec.endsWith(".db")) return isAbsolute(spec) ? spec : resolve(root, spec);
  return null;
}

/** Opens the store (creating and migrating it as any command would), then checks a write lock. */
export async function checkStore(config: Config, root: string): Promise<Check> {
  const name = "store";
  try {
    const store = await openStore(config.database.url, root);
    await store.close();
  } catch (e) {
    return {
      name,
      status: "fail",
      detail: errorMessage(e),
      fix: "fix the `database` setting or the file's permissions; another fixpoint may hold it locked",
    };
  }
  const path = sqlitePath(config.database.url, root);
  // A PostgreSQL URL is shown without its password.
  if (path === null) return { name, status: "ok", detail: `${describeUrl(config.database.url)} opens` };
  try {
    const db = openDatabase(path, 2000);
    try {
      const version = db.pragma("user_version", { simple: true });
      // BEGIN IMMEDIATE takes the write lock: it fails on a read-only file or a stuck lock.
      db.exec("BEGIN IMMEDIATE");
      db.exec("ROLLBACK");
      const current =
        version === LATEST_SCHEMA_VERSION ? "current" : `this fixpoint expects ${LATEST_SCHEMA_VERSION}`;
      return {
        name,
        status: "ok",
        detail: `sqlite ${path} · schema ${String(version)} (${current}) · writable`,
      };
    } finally {
      db.close();
    }
  } catch (e) {
    return {
      name,
      status: "fail",
      detail: `sqlite ${path} is not writable: ${errorMessage(e)}`,
      fix: "check the file's owner and permissions, and that no other process holds a write lock",
    };
  }
}
