import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runGitSync } from "./exec.js";

/**
 * Real git repositories in temporary folders, for tests (ours and other modules' that need a
 * checkout). Git runs with the user's and the system's config switched off, so a developer's
 * aliases, hooks or default branch cannot change what a test sees.
 */
export const ISOLATED_GIT_ENV: NodeJS.ProcessEnv = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
};

const TEST_IDENTITY = ["-c", "user.name=Test Author", "-c", "user.email=test@example.com"];

export interface TempRepo {
  /** The temporary folder holding the repository (and anything else the test makes). */
  dir: string;
  /** The repository's top-level folder (real path). */
  repo: string;
  /** Runs git in `cwd` (default: the repository) and returns trimmed stdout; throws on failure. */
  git(args: string[], cwd?: string): string;
  write(relPath: string, content: string, cwd?: string): void;
  read(relPath: string, cwd?: string): string;
  /** Writes the files and commits them; returns the new sha. */
  commit(files: Record<string, string>, message: string, cwd?: string): string;
  cleanup(): void;
}

/** A repository on branch `main` with one commit containing `README.md`. */
export function createTempRepo(): TempRepo {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "fixpoint-git-")));
  const repo = join(dir, "repo");
  mkdirSync(repo);
  const git = (args: string[], cwd = repo): string =>
    runGitSync(cwd, [...TEST_IDENTITY, ...args], { env: ISOLATED_GIT_ENV }).trim();
  const write = (relPath: string, content: string, cwd = repo): void => {
    const file = join(cwd, relPath);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  const commit = (files: Record<string, string>, message: string, cwd = repo): string => {
    for (const [p, c] of Object.entries(files)) write(p, c, cwd);
    git(["add", "-A"], cwd);
    git(["commit", "-q", "-m", message], cwd);
    return git(["rev-parse", "HEAD"], cwd);
  };
  git(["init", "-q", "-b", "main"]);
  commit({ "README.md": "hello\n" }, "Initial commit");
  return {
    dir,
    repo,
    git,
    write,
    read: (relPath, cwd = repo) => readFileSync(join(cwd, relPath), "utf8"),
    commit,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A stand-in for git in `dir` that logs each invocation's arguments and runs the real git, so a
 * test counts the processes started while real git does the work. `spawned()` returns the
 * subcommands run since its last call (the `-c` safety flags and `--no-optional-locks` stripped).
 */
export function loggingGit(dir: string): { path: string; spawned(): string[] } {
  const log = join(dir, "git.log");
  const path = join(dir, "git-wrapper.sh");
  writeFileSync(path, `#!/bin/sh\necho "$*" >> "${log}"\nexec git "$@"\n`);
  chmodSync(path, 0o755);
  const spawned = (): string[] => {
    let text = "";
    try {
      text = readFileSync(log, "utf8");
      unlinkSync(log);
    } catch {
      return [];
    }
    return text
      .trim()
      .split("\n")
      .map((l) => l.replace(/(-c \S+ |--no-optional-locks )+/g, "").split(" ")[0] ?? "");
  };
  return { path, spawned };
}
