import { rmSync } from "node:fs";
import { join } from "node:path";
import { createFixpoint, type Fixpoint } from "../../src/app/fixpoint.js";
import { createDemoRepo } from "../../src/demo/project.js";
import type { NewTask } from "../../src/domain/types.js";
import type { DashboardApi } from "../../src/server/api.js";
import { createDashboard, type DashboardOptions } from "../../src/server/app.js";
import { createAppApi } from "../../src/server/app-api.js";
import { isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

/** A real git repository with `fixpoint init` run, its project open (real SQLite file). */
export interface ServerHarness {
  root: string;
  repo: string;
  env: NodeJS.ProcessEnv;
  fixpoint: Fixpoint;
  store: Fixpoint["store"];
  /** `<repo>/.fixpoint` */
  dir: string;
  api: DashboardApi;
  cleanup(): Promise<void>;
}

export async function openHarness(): Promise<ServerHarness> {
  const root = tempDir("fixpoint-serve-");
  try {
    const repo = join(root, "repo");
    const env = isolatedEnv(root);
    createDemoRepo(repo);
    const init = runCli(["init"], { cwd: repo, env });
    if (init.code !== 0) throw new Error(`fixpoint init failed: ${init.stderr}`);
    const fixpoint = await createFixpoint({ cwd: repo, env, actor: ACTOR, init: false });
    return {
      root,
      repo,
      env,
      fixpoint,
      store: fixpoint.store,
      dir: join(repo, ".fixpoint"),
      api: createAppApi(fixpoint, { actor: ACTOR }),
      cleanup: async () => {
        await fixpoint.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
}

export const CSRF = "test-csrf-token-0123456789";
export const ACTOR = "tester (dashboard)";

export function dashboard(h: ServerHarness, opts: Partial<DashboardOptions> = {}) {
  return createDashboard({
    api: h.api,
    csrf: CSRF,
    live: { pollMs: 20 },
    ...opts,
  });
}

export function task(h: ServerHarness, overrides: Partial<NewTask> = {}): NewTask {
  return {
    type: "implement",
    title: "Add a greeting",
    prompt: "Make main print hello",
    workflow: "implement-review",
    repo: h.repo,
    baseBranch: "main",
    maxCycles: 3,
    ...overrides,
  };
}

export function form(fields: Record<string, string>): {
  method: "POST";
  headers: Record<string, string>;
  body: string;
} {
  return {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  };
}
