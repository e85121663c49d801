import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentRequest } from "../../src/domain/agent.js";
import type { ProcessResult, ProcessRunner } from "../../src/domain/process.js";
import { createProcessRunner } from "../../src/util/process-runner.js";
import { makeTempDir } from "../helpers/temp.js";

/** A fresh git repository with one commit, in a temporary folder. */
export function tempRepo(): string {
  const dir = makeTempDir("e2e-repo-");
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  };
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "# demo\n");
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init");
  return dir;
}

export function tempDir(prefix: string): string {
  return makeTempDir(`e2e-${prefix}-`);
}

export function request(cwd: string, prompt: string, extra: Partial<AgentRequest> = {}): AgentRequest {
  return {
    agent: "implementer",
    purpose: "implement",
    taskId: "t1",
    stageId: "implement",
    cycle: 1,
    prompt,
    cwd,
    timeoutMs: 90_000,
    env: {},
    signal: new AbortController().signal,
    ...extra,
  };
}

/** The real process runner, remembering each run's result (its pid, to check the group is gone). */
export function recordingRunner(): ProcessRunner & { results: ProcessResult[] } {
  const real = createProcessRunner();
  const results: ProcessResult[] = [];
  return {
    results,
    run: async (spec) => {
      const r = await real.run(spec);
      results.push(r);
      return r;
    },
  };
}

export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A minimal user environment: nothing from the developer's machine (no real API keys) leaks in. */
export function isolatedEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
}
