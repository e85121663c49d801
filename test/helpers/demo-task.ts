import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import type { Store } from "../../src/domain/store.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { FIXTURE_AGENTS, git, isolatedEnv, runCli, tempDir } from "./cli.js";

/** One line the counting test agents append per invocation (test/fixtures/agents/counting.mjs). */
export interface Invocation {
  role: string;
  task: string;
  stage: string;
  cycle: number;
  pid: number;
}

/** The demo repository with one queued task, run by the counting scripted agents through the real CLI. */
export interface DemoTask {
  root: string;
  repo: string;
  env: NodeJS.ProcessEnv;
  invocations(): Invocation[];
  /** Opens the project's store (close it after use). */
  store(): Promise<Store>;
  /** Subjects of the task branch's commits that are not on main, oldest first. */
  branchSubjects(): string[];
  cleanup(): void;
}

export function createDemoTask(extraEnv: Record<string, string> = {}): DemoTask {
  const root = tempDir("fixpoint-crash-");
  try {
    const repo = join(root, "repo");
    const counts = join(root, "counts.jsonl");
    const env = isolatedEnv(root, { FIXPOINT_TEST_COUNTS: counts, ...extraEnv });
    createDemoRepo(repo);
    const init = runCli(["init"], { cwd: repo, env });
    if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig(FIXTURE_AGENTS));
    const add = runCli(["add", "Add mean() and median() to src/stats.js"], { cwd: repo, env });
    if (add.code !== 0) throw new Error(`add failed: ${add.stderr}`);
    return {
      root,
      repo,
      env,
      invocations: () =>
        existsSync(counts)
          ? readFileSync(counts, "utf8")
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Invocation)
          : [],
      store: () => openSqliteStore(join(repo, ".fixpoint", "fixpoint.db")),
      branchSubjects: () => {
        const branch = git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/fixpoint/").trim();
        if (!branch) return [];
        return git(repo, "log", "--reverse", "--format=%s", `main..${branch}`).split("\n").filter(Boolean);
      },
      cleanup: () => rmSync(root, { recursive: true, force: true }),
    };
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
}
