/**
 * The world of the GitHub end-to-end tests: the fake GitHub on 127.0.0.1, a real bare git
 * repository as `origin`, a project checkout configured for both, and the real `fixpoint`
 * binary run as a child process (asynchronously: the fake server lives in this process).
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedAgentsConfig } from "../../src/demo/project.js";
import type { Store } from "../../src/domain/store.js";
import { openStore } from "../../src/store/open.js";
import { type FakeGithub, startFakeGithub } from "../fakes/github-server/index.js";
import { CLI, type CliResult, git, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";
import { readJsonLines } from "../helpers/jsonl.js";

const AGENTS = fileURLToPath(new URL("./agents/", import.meta.url));

export interface World {
  root: string;
  repo: string;
  origin: string;
  gh: FakeGithub;
  env: NodeJS.ProcessEnv;
  prompts: string;
  notifyLog: string;
  fixpoint(args: string[], timeoutMs?: number): Promise<CliResult>;
  /** Reads the project's store (close it after use). */
  withStore<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface WorldOptions {
  github?: Record<string, string>;
  env?: Record<string, string>;
}

export async function createWorld(opts: WorldOptions = {}): Promise<World> {
  const root = tempDir("fixpoint-gh-e2e-");
  const gh = await startFakeGithub({ repo: "o/r", token: "test" });
  const repo = join(root, "repo");
  const origin = join(root, "origin.git");
  const prompts = join(root, "prompts.jsonl");
  const notifyLog = join(root, "notify.log");
  const env = isolatedEnv(root, { GITHUB_TOKEN: "test", FIXPOINT_TEST_PROMPTS: prompts, ...opts.env });
  seedRepositories(root, repo, origin, env);
  expect0(runCli(["init"], { cwd: repo, env }), "fixpoint init");
  const notify = join(root, "notify.sh");
  writeFileSync(
    notify,
    `#!/bin/sh\n{ echo "--- pr=$FIXPOINT_PR task=$FIXPOINT_TASK"; cat; } >> '${notifyLog}'\n`,
  );
  chmodSync(notify, 0o755);
  writeFileSync(join(repo, "fixpoint.kdl"), config(gh.url, notify, opts.github ?? {}));

  return {
    root,
    repo,
    origin,
    gh,
    env,
    prompts,
    notifyLog,
    fixpoint: (args, timeoutMs = 60_000) => runAsync(args, repo, env, timeoutMs),
    withStore: async (fn) => {
      const store = await openStore("sqlite", repo);
      try {
        return await fn(store);
      } finally {
        await store.close();
      }
    },
    close: () => gh.close(),
  };
}

/** main with src/app.js on a bare origin, and a PR branch `feature-x` that exists only there. */
function seedRepositories(root: string, repo: string, origin: string, env: NodeJS.ProcessEnv): void {
  const run = (cwd: string, ...args: string[]) => gitEnv(cwd, env, args);
  run(root, "init", "-q", "--bare", "-b", "main", origin);
  run(root, "init", "-q", "-b", "main", repo);
  mkdirSync(join(repo, "src"), { recursive: true });
  writeFileSync(join(repo, "src/app.js"), "export function parse(input) {\n  return JSON.parse(input);\n}\n");
  run(repo, "add", "-A");
  run(repo, "commit", "-q", "-m", "app: parse");
  run(repo, "remote", "add", "origin", origin);
  run(repo, "push", "-q", "origin", "main");
  const clone = join(root, "clone");
  run(root, "clone", "-q", origin, clone);
  run(clone, "checkout", "-q", "-b", "feature-x");
  writeFileSync(
    join(clone, "src/app.js"),
    "export function parse(input) {\n  return JSON.parse(input ?? '{}');\n}\n",
  );
  run(clone, "commit", "-q", "-am", "parse: default input");
  run(clone, "push", "-q", "origin", "feature-x");
}

function gitEnv(cwd: string, env: NodeJS.ProcessEnv, args: string[]): void {
  const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
}

function config(url: string, notify: string, github: Record<string, string>): string {
  const fields: Record<string, string> = {
    repo: '"o/r"',
    "base-url": JSON.stringify(url),
    "allow-authors": '"alice"',
    bots: '"coderabbitai"',
    "max-rework-cycles": "2",
    "comment-timeout": '"5s"',
    notify: JSON.stringify(`sh ${notify}`),
    ...github,
  };
  return `${scriptedAgentsConfig(AGENTS, 2)}
github {
${Object.entries(fields)
  .map(([k, v]) => `    ${k} ${v}`)
  .join("\n")}
}
`;
}

function expect0(r: CliResult, what: string): void {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.stdout}${r.stderr}`);
}

/** The CLI without blocking this process: the fake GitHub must keep answering meanwhile. */
export function runAsync(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`fixpoint ${args.join(" ")} did not finish within ${timeoutMs} ms:\n${stdout}${stderr}`),
      );
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface PromptRecord {
  role: string;
  task: string;
  stage: string;
  cycle: number;
  prompt: string;
}

export function recordedPrompts(file: string): PromptRecord[] {
  return readJsonLines<PromptRecord>(file);
}

export { git };
