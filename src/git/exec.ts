import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { FixpointError } from "../errors.js";
import { startChild } from "../util/spawner.js";

/**
 * The one place fixpoint runs git (test/architecture/git-calls.test.ts fails on any other).
 * Runs one git command with an argument vector (never a shell string) and collects its output.
 * Non-zero exits listed in `okCodes` resolve as data (e.g. `diff --quiet` answering "changed");
 * any other failure throws FixpointError("git", "git <subcommand> failed: <first stderr line>").
 * Every invocation carries a timeout and an AbortSignal: the runner's own (`timeoutMs`, and
 * `signal` to stop every git call of a worker that shuts down), joined with the call's.
 */
export interface GitRunner {
  run(cwd: string, args: string[], opts?: GitRunOptions): Promise<GitResult>;
}

export interface GitRunOptions {
  /** Written to stdin. stdin is always closed so git can never sit waiting for input. */
  input?: string;
  /** Exit codes besides 0 that are answers rather than failures. */
  okCodes?: number[];
  /** This call's bound instead of the runner's. */
  timeoutMs?: number;
  /** Stops this call (joined with the runner's signal). */
  signal?: AbortSignal;
}

/** Long enough for `worktree add` of a large repository; short enough that a hung git ends. */
export const DEFAULT_GIT_TIMEOUT_MS = 10 * 60_000;

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitRunnerDeps {
  gitPath: string;
  env: NodeJS.ProcessEnv;
  /** Bound on each git process (default DEFAULT_GIT_TIMEOUT_MS). */
  timeoutMs: number;
  /** Aborting it kills every git process of this runner, running or to come. */
  signal: AbortSignal;
}

/** The limits one invocation runs under: both always present. */
interface Limits {
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Settings applied to every invocation. Hooks and signing can block on a prompt or a pinentry
 * window that nobody will answer, so they are off for the commits fixpoint makes on its own
 * branches; the user's hooks still run on their own commits in their own checkout.
 */
const SAFETY_CONFIG = ["-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"];

export function createGitRunner(deps: Partial<GitRunnerDeps> = {}): GitRunner {
  const gitPath = deps.gitPath ?? "git";
  const env = gitEnv(deps.env);
  const limits = (opts: GitRunOptions): Limits => {
    const timeoutMs = opts.timeoutMs ?? deps.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
    const signals = [deps.signal, opts.signal].filter((s): s is AbortSignal => s !== undefined);
    return { timeoutMs, signal: signals.length === 1 && signals[0] ? signals[0] : AbortSignal.any(signals) };
  };
  return {
    run: async (cwd, args, opts = {}) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await runOnce(gitPath, env, cwd, args, opts, limits(opts));
        } catch (e) {
          if (
            attempt >= HALF_WRITTEN_RETRIES ||
            !(e instanceof FixpointError) ||
            !HALF_WRITTEN.test(e.message)
          )
            throw e;
          await new Promise((r) => setTimeout(r, 25 * attempt));
        }
      }
    },
  };
}

/** git's environment: the caller's, made non-interactive and in one language. */
function gitEnv(extra: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...extra,
    GIT_TERMINAL_PROMPT: "0",
    // Messages in one language: some are recognised (e.g. "not a git repository") and all end up
    // in error reports. Content is bytes to git, so this does not affect diffs or commit messages.
    LC_ALL: "C",
    // Nothing we run should open an editor; if something tries, it gets a no-op instead of a hang.
    GIT_EDITOR: "true",
    GIT_SEQUENCE_EDITOR: "true",
  };
}

/**
 * Commands that look at every worktree (`worktree add <branch>`, `worktree list`, `branch`) read
 * each one's admin folder; while another process runs `git worktree add`, that folder's files
 * exist but are still empty for a moment, and git dies ("failed to read
 * .git/worktrees/<id>/commondir: Success") before changing anything. Such a failure is retried.
 */
const HALF_WRITTEN = /failed to read \S*worktrees\/[^/\s]+\//;
/** 25 ms, 50 ms, …: about 1.1 s in all before the failure is reported. */
const HALF_WRITTEN_RETRIES = 10;

function runOnce(
  gitPath: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  args: string[],
  opts: GitRunOptions,
  limits: Limits,
): Promise<GitResult> {
  const subcommand = subcommandOf(args);
  return new Promise((resolve, reject) => {
    if (limits.signal.aborted) {
      reject(new FixpointError("git", `git ${subcommand} cancelled`));
      return;
    }
    // Through the spawner (src/util/spawner.ts), which sends SIGTERM on timeout or abort and says
    // which it was.
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    startChild(
      {
        command: gitPath,
        args: [...SAFETY_CONFIG, ...args],
        cwd,
        env,
        detached: false,
        input: opts.input ?? "",
        timeout: limits.timeoutMs,
        signal: limits.signal,
      },
      {
        spawned: () => {},
        failed: (e) => reject(spawnFailure(e, cwd, subcommand)),
        stdout: (b) => out.push(b),
        stderr: (b) => err.push(b),
        closed: (code, signal, stopped) => {
          if (signal !== null && stopped !== null) {
            const why = limits.signal.aborted ? "cancelled" : `timed out after ${limits.timeoutMs} ms`;
            reject(new FixpointError("git", `git ${subcommand} ${why}`));
            return;
          }
          const stdout = Buffer.concat(out).toString("utf8");
          const stderr = Buffer.concat(err).toString("utf8");
          const exit = code ?? -1;
          if (exit === 0 || (code !== null && opts.okCodes?.includes(code))) {
            resolve({ code: exit, stdout, stderr });
            return;
          }
          reject(gitFailure(subcommand, stderr, signal ? `killed by ${signal}` : `exit code ${exit}`));
        },
      },
    );
  });
}

/**
 * A git command run to completion before returning, for set-up code that cannot wait on a
 * promise (test fixtures, the demo repository). Bounded by `timeoutMs`; nothing can abort a
 * blocking call, so the timeout is its only limit.
 */
export function runGitSync(
  cwd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): string {
  const r = spawnSync("git", args, {
    cwd,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: opts.timeoutMs ?? 60_000,
  });
  const subcommand = subcommandOf(args);
  if (r.error) throw spawnFailure(r.error, cwd, subcommand);
  if (r.status !== 0)
    throw gitFailure(subcommand, r.stderr, r.signal ? `killed by ${r.signal}` : `exit code ${r.status}`);
  return r.stdout;
}

function spawnFailure(e: NodeJS.ErrnoException, cwd: string, subcommand: string): FixpointError {
  // spawn reports a missing working directory as ENOENT too; tell the two apart.
  if (e.code === "ENOENT" && !existsSync(cwd)) {
    return new FixpointError("git", `git ${subcommand} failed: folder does not exist: ${cwd}`, { cause: e });
  }
  if (e.code === "ENOENT" || e.code === "EACCES") {
    return new FixpointError("environment", "git is not installed or not on PATH", { cause: e });
  }
  return new FixpointError("git", `git ${subcommand} failed: ${e.message}`, { cause: e });
}

/** The first argument that is not a `-c key=value` pair or a global option. */
function subcommandOf(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-c" || a === "-C") {
      i++;
      continue;
    }
    if (a !== undefined && !a.startsWith("-")) return a;
  }
  return args[0] ?? "";
}

export function gitFailure(subcommand: string, stderr: string, otherwise = "unknown error"): FixpointError {
  return new FixpointError("git", `git ${subcommand} failed: ${firstLine(stderr) ?? otherwise}`);
}

/** git prints progress and hints before the real complaint; prefer its `fatal:`/`error:` line. */
function firstLine(text: string): string | undefined {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0];
}

/**
 * Revisions and branch names come from task records and config. One that starts with `-` would be
 * read as an option (`--output=<file>` makes `git diff` write anywhere), so refuse it up front.
 */
export function checkRev(rev: string, what = "revision"): string {
  if (rev.length === 0 || rev.startsWith("-") || rev.includes("\0") || /[\n\r]/.test(rev)) {
    throw new FixpointError("git", `invalid git ${what}: ${JSON.stringify(rev)}`);
  }
  return rev;
}
