import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLI, git, isolatedEnv } from "../../helpers/cli.js";
import { makeTempDir } from "../../helpers/temp.js";
import type { CliCase } from "../cli-cases.js";

/**
 * A real project for the workflow end-to-end suite: a git repository with `fixpoint.kdl` whose
 * agents use one real CLI (on PATH, pointed at the fake model through the user's environment, as
 * a person would export ANTHROPIC_BASE_URL), and a one-reviewer workflow in .fixpoint/workflows/.
 */

export interface WorkflowCase {
  cli: CliCase;
  model: string;
}

export interface E2EProject {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Where the CLI keeps its own config and sessions (CLAUDE_CONFIG_DIR, CODEX_HOME, …). */
  cliHome: string;
}

export const WORKFLOW = `// implement-review with ONE reviewer, to keep the end-to-end tasks short.
workflow "e2e-review" {
    description "implement, gates, one review, fix until approved"
    start "implement"
    stage "implement" kind="agent" agent="implementer" prompt="implement"
    stage "gates" kind="gate"
    stage "review" kind="review" agent="reviewer" prompt="review-code"
    stage "decide" kind="decision" {
        route to="discuss"  when=#"verdict() == "NEEDS_DISCUSSION""#
        route to="done"     when="blocking_open() == 0 && gates_passed()"
        route to="blocked"  when="all_blocked()"
        route to="stalled"  when="no_progress()"
        route to="escalate" when="cycle() >= max_cycles() || !budget_left()"
        route to="fix"      when="true"
    }
    stage "fix" kind="fix" agent="fixer" prompt="fix" next-cycle=#true
    stage "done" kind="exit"
    stage "discuss" kind="exit" verdict="NEEDS_DISCUSSION"
    stage "blocked" kind="exit"
    stage "stalled" kind="exit"
    stage "escalate" kind="exit"
    transition from="implement" to="gates"
    transition from="gates" to="review"
    transition from="review" to="decide"
    transition from="fix" to="gates"
}
`;

const q = (s: string): string => JSON.stringify(s);

function agentKdl(name: string, c: WorkflowCase, timeout: string, args: string[]): string {
  const head = `agent ${q(name)} backend=${q(c.cli.name)} model=${q(c.model)} timeout=${q(timeout)}`;
  return args.length ? `${head} {\n    args ${args.map(q).join(" ")}\n}` : head;
}

export function projectKdl(c: WorkflowCase, url: string): string {
  const args = c.cli.extraArgs(url);
  return [
    agentKdl("implementer", c, "2m", args),
    agentKdl("reviewer", c, "2m", args),
    agentKdl("fixer", c, "2m", args),
    // For the hung-model scenario: `fixpoint add --agent impl-hang`.
    agentKdl("impl-hang", c, "5s", args),
    "",
    "defaults {",
    `    workflow "e2e-review"`,
    "    max-cycles 2",
    "}",
    `database "sqlite"`,
    "",
  ].join("\n");
}

export function createProject(c: WorkflowCase, bin: string, url: string): E2EProject {
  // Made by the first test that needs it and shared by the file's tests: removed after them.
  const base = makeTempDir(`e2e-wf-${c.cli.name}-`, { forFile: true });
  const root = join(base, "repo");
  const cliHome = join(base, "cli");
  mkdirSync(join(root, ".fixpoint", "workflows"), { recursive: true });
  mkdirSync(join(base, "home"), { recursive: true });
  mkdirSync(cliHome, { recursive: true });
  git(base, "init", "-q", "-b", "main", root);
  writeFileSync(join(root, "README.md"), "# greeter\n");
  writeFileSync(join(root, ".gitignore"), ".fixpoint/\n");
  writeFileSync(join(root, "fixpoint.kdl"), projectKdl(c, url));
  writeFileSync(join(root, ".fixpoint", "workflows", "e2e-review.kdl"), WORKFLOW);
  const env = isolatedEnv(base, {
    ...c.cli.env(url, cliHome),
    PATH: `${dirname(bin)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    LANG: "C.UTF-8",
  });
  git(root, "add", ".");
  git(root, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "A greeter");
  return { root, env, cliHome };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs the real `fixpoint` binary WITHOUT blocking this process (the fake model server answers
 * from this process's event loop, so spawnSync would deadlock it).
 */
export function fixpoint(p: E2EProject, args: string[], timeoutMs = 240_000): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: p.root,
      env: p.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export async function fixpointJson<T>(p: E2EProject, args: string[]): Promise<T> {
  const r = await fixpoint(p, [...args, "--json"]);
  if (r.code !== 0) throw new Error(`fixpoint ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Queues a task and returns its id. */
export async function addTask(p: E2EProject, prompt: string, flags: string[] = []): Promise<string> {
  const r = await fixpointJson<{ id: string }>(p, ["add", prompt, ...flags]);
  return r.id;
}

/** Deletes every file of the CLI's own store whose name carries `sessionId`: the session is lost. */
export function loseSession(p: E2EProject, sessionId: string): string[] {
  const gone: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.name.includes(sessionId)) {
        rmSync(path, { recursive: true, force: true });
        gone.push(path);
      } else if (e.isDirectory()) walk(path);
    }
  };
  walk(p.cliHome);
  return gone;
}
