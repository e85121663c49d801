import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURE_AGENTS, git, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

/** Three committing stages, then the gates: enough for a kill to land after a checkpoint. */
export const THREE_STEP_WORKFLOW = `workflow "three-step" {
    start "one"
    stage "one" kind="agent" agent="implementer" prompt="implement"
    stage "two" kind="agent" agent="implementer" prompt="implement"
    stage "three" kind="agent" agent="implementer" prompt="implement"
    stage "gates" kind="gate"
    stage "done" kind="exit"
    transition from="one" to="two"
    transition from="two" to="three"
    transition from="three" to="gates"
    transition from="gates" to="done"
}
`;

/**
 * Writes fixpoint's files into a checkout: the stepper agent (test/fixtures/agents/stepper.mjs)
 * as implementer and fixer, the three-step workflow, and the push remote when given.
 */
export function writeProjectFiles(checkout: string, opts: { pushRemote?: string } = {}): void {
  const script = JSON.stringify(join(FIXTURE_AGENTS, "stepper.mjs"));
  const push = opts.pushRemote ? `    push-remote ${JSON.stringify(opts.pushRemote)}\n` : "";
  writeFileSync(
    join(checkout, "fixpoint.kdl"),
    `agent "implementer" backend="scripted" script=${script} timeout="1m"\nagent "fixer" backend="scripted" script=${script} timeout="1m"\ndefaults {\n    workflow "three-step"\n${push}}\n`,
  );
  mkdirSync(join(checkout, ".fixpoint", "workflows"), { recursive: true });
  writeFileSync(join(checkout, ".fixpoint", "workflows", "three-step.kdl"), THREE_STEP_WORKFLOW);
}

/** The task branches (`fixpoint/…`) the bare repository holds. */
export function taskBranches(bare: string): string[] {
  return git(bare, "for-each-ref", "--format=%(refname:short)", "refs/heads/fixpoint/")
    .split("\n")
    .filter(Boolean);
}

/** Commits on `branch` of the bare repository `bare` beyond `main`, oldest first, with their patch-ids. */
export function branchCommits(
  bare: string,
  branch: string,
): { sha: string; subject: string; patchId: string }[] {
  const log = git(bare, "log", "--reverse", "--format=%H %s", `main..${branch}`).split("\n").filter(Boolean);
  return log.map((line) => {
    const sha = line.slice(0, 40);
    const patch = spawnSync("git", ["show", "--format=", sha], { cwd: bare, encoding: "utf8" }).stdout;
    const id = spawnSync("git", ["patch-id", "--stable"], {
      cwd: bare,
      input: patch,
      encoding: "utf8",
    }).stdout;
    return { sha, subject: line.slice(41), patchId: id.split(" ")[0] ?? "" };
  });
}

/** A bare repository with one commit on `main`, and `names` clones of it beside it. */
export function bareWithClones(root: string, names: string[]): { bare: string; clones: string[] } {
  const bare = join(root, "remote.git");
  const seed = join(root, "seed");
  git(root, "init", "-q", "--bare", "-b", "main", bare);
  git(root, "init", "-q", "-b", "main", seed);
  writeFileSync(join(seed, "README.md"), "# project\n");
  git(seed, "add", "-A");
  git(seed, "-c", "user.name=test", "-c", "user.email=test@localhost", "commit", "-q", "-m", "initial");
  git(seed, "remote", "add", "origin", bare);
  git(seed, "push", "-q", "origin", "main");
  const clones = names.map((n) => {
    const dir = join(root, n);
    git(root, "clone", "-q", bare, dir);
    return dir;
  });
  return { bare, clones };
}

/** Invocations the counting agents recorded (test/fixtures/agents/counting.mjs). */
export interface Invocation {
  role: string;
  task: string;
  stage: string;
  pid: number;
}

/** Two "machines": clones `a` and `b` of one bare repository, one store, one counts file. */
export interface TwoMachines {
  bare: string;
  a: string;
  b: string;
  /** The invocations file the counting agents append to (FIXPOINT_TEST_COUNTS). */
  counts: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Two clones of one bare repository in a temporary folder, each initialised with the three-step
 * project pushing to `origin`, sharing the store at `database` (FIXPOINT_DATABASE_URL; a function
 * gets the temporary folder, for a shared SQLite file); `extraEnv`
 * goes to every command. Throws when `init` fails.
 */
export function twoMachines(
  database: string | ((root: string) => string),
  extraEnv: Record<string, string> = {},
): TwoMachines {
  const root = tempDir();
  const { bare, clones } = bareWithClones(root, ["machine-a", "machine-b"]);
  const [a, b] = clones as [string, string];
  const counts = join(root, "counts.jsonl");
  const env = isolatedEnv(root, {
    FIXPOINT_TEST_COUNTS: counts,
    FIXPOINT_DATABASE_URL: typeof database === "string" ? database : database(root),
    ...extraEnv,
  });
  for (const c of [a, b]) {
    const init = runCli(["init"], { cwd: c, env });
    if (init.code !== 0) throw new Error(`fixpoint init failed: ${init.stderr}`);
    writeProjectFiles(c, { pushRemote: "origin" });
  }
  return { bare, a, b, counts, env };
}
