import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** `~` and `~/x` become the home folder; anything else is returned unchanged. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** Expands `~`, then makes a relative path absolute against `baseDir` (the config file's folder). */
export function resolvePath(path: string, baseDir: string, home: string): string {
  const expanded = expandHome(path, home);
  return isAbsolute(expanded) ? expanded : resolve(baseDir, expanded);
}

/**
 * A `command` of an agent: the executable is resolved when it is a path (contains `/`), so
 * `./agent.sh` means the one next to the config file while `node` is still looked up on PATH;
 * arguments are resolved only when they say they are relative paths (`./x`, `../x`, `~/x`),
 * because `--verbose` or `agent.mjs` may mean anything to the program.
 */
export function resolveCommand(command: string[], baseDir: string, home: string): string[] {
  return command.map((part, i) => {
    const isPath = i === 0 ? part.includes("/") || part.startsWith("~") : /^(\.\.?|~)\//.test(part);
    return isPath ? resolvePath(part, baseDir, home) : part;
  });
}

/** The user's home: `$HOME` from the given environment, else the OS's idea of it. */
export function homeFrom(env: NodeJS.ProcessEnv): string {
  const home = env.HOME;
  return home !== undefined && home !== "" ? home : homedir();
}

/**
 * `$FIXPOINT_HOME`, default `~/.fixpoint`: where worktrees and other per-user state live. Like
 * every path from the environment, a relative one is taken from the current directory.
 */
export function fixpointHome(env: NodeJS.ProcessEnv): string {
  const home = homeFrom(env);
  const configured = env.FIXPOINT_HOME;
  return configured !== undefined && configured !== ""
    ? resolvePath(configured, process.cwd(), home)
    : join(home, ".fixpoint");
}
