import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { makeTempDir, TEMP_PREFIX } from "./temp.js";

/** The `fixpoint` users run: the bundled binary (scripts/bundle-cli.mjs), built by global-setup.ts. */
export const CLI = fileURLToPath(new URL("../../dist/bin/fixpoint.js", import.meta.url));
export const FIXTURE_AGENTS = fileURLToPath(new URL("../fixtures/agents/", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temporary directory removed after the test (or the file's tests) — also when they fail. */
export function tempDir(prefix = "fixpoint-test-"): string {
  return makeTempDir(prefix.startsWith(TEMP_PREFIX) ? prefix.slice(TEMP_PREFIX.length) : prefix);
}

/** An environment that keeps fixpoint's home, the user config and git identity inside `root`. */
export function isolatedEnv(root: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: join(root, "home"),
    FIXPOINT_HOME: join(root, "fixpoint-home"),
    XDG_CONFIG_HOME: join(root, "xdg"),
    GIT_AUTHOR_NAME: "test",
    GIT_AUTHOR_EMAIL: "test@localhost",
    GIT_COMMITTER_NAME: "test",
    GIT_COMMITTER_EMAIL: "test@localhost",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
}

export function runCli(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function startCli(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  return Object.assign(child, { output: () => out });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

/** Polls `check` every 25 ms until it is true (or fails after `timeoutMs`). */
export async function waitFor(check: () => boolean, timeoutMs = 30_000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

export interface DemoProject {
  root: string;
  repo: string;
  env: NodeJS.ProcessEnv;
  /** Runs the CLI in the project's repository. */
  cli: (...args: string[]) => CliResult;
}

/**
 * The demo repository, initialised for fixpoint with the demo config, in a temporary folder that
 * is removed after the test: what most CLI tests start from. Throws when `init` fails.
 */
export function demoProject(prefix = "fixpoint-test-"): DemoProject {
  const root = tempDir(prefix);
  const repo = join(root, "repo");
  const env = isolatedEnv(root);
  createDemoRepo(repo);
  const cli = (...args: string[]) => runCli(args, { cwd: repo, env });
  const init = cli("init");
  if (init.code !== 0) throw new Error(`fixpoint init failed: ${init.stderr}`);
  writeFileSync(join(repo, "fixpoint.kdl"), demoConfig());
  return { root, repo, env, cli };
}

/**
 * The demo project with one scripted implementer, `source` (an ES module's text), as its only
 * configured agent: what worker tests that need a slow, stuck or scripted agent start from.
 */
export function projectWithImplementer(source: string, opts: { timeout?: string } = {}): DemoProject {
  const p = demoProject();
  writeFileSync(join(p.repo, "impl.mjs"), source);
  const timeout = opts.timeout ? ` timeout="${opts.timeout}"` : "";
  writeFileSync(
    join(p.repo, "fixpoint.kdl"),
    `agent "implementer" backend="scripted" script="./impl.mjs"${timeout}\n`,
  );
  return p;
}

/**
 * A preload (`node -r <preload>`) that prints, as the process exits, the built-in modules it
 * loaded (not a V8 flag, so the CLI's code cache is still taken), and the reader of that line in
 * the process's stderr.
 */
export function moduleReport(root: string): { preload: string; loaded: (stderr: string) => string[] } {
  const preload = join(root, "modules.cjs");
  writeFileSync(
    preload,
    'process.on("exit", () => require("node:fs").writeSync(2, "\\nLOADED " + process.moduleLoadList.join("|") + "\\n"));\n',
  );
  return { preload, loaded: (stderr) => (/LOADED (.*)/.exec(stderr)?.[1] ?? "").split("|") };
}
