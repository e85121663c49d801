import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultFactories } from "../../agents/resolver.js";
import { createGitRunner } from "../../git/exec.js";
import { createGit } from "../../git/git-cli.js";
import { createProcessRunner } from "../../util/process-runner.js";
import { cliFactoriesOrEmpty } from "../backends.js";
import { isInitialised } from "../project.js";
import { checkAgent } from "./agent-check.js";
import type { Check } from "./check.js";
import { checkChildStarter, checkConfig, checkGit, checkRepository, checkStore } from "./environment.js";
import { checkPrices } from "./price-check.js";

/** Runs every check in order; a check that depends on a failed one is skipped, not failed twice. */
export async function doctor(opts: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  offline: boolean;
  timeoutMs: number;
}): Promise<Check[]> {
  const runner = createProcessRunner();
  const git = createGitRunner({ env: opts.env });
  const checks: Check[] = [await checkGit(git, opts.cwd), checkChildStarter(opts.env)];
  const repo = await checkRepository(createGit(), opts.cwd);
  checks.push(repo.check);
  if (!repo.root) return checks;
  const cfg = await checkConfig(repo.root, opts.env, opts.cwd);
  checks.push(cfg.check);
  if (!cfg.config) return checks;
  // Checking the store opens it, which creates it: not in a repository nobody initialised.
  checks.push(
    isInitialised(repo.root)
      ? await checkStore(cfg.config, repo.root)
      : {
          name: "store",
          status: "warn",
          detail: `${repo.root} is not initialised for fixpoint (no fixpoint.kdl or .fixpoint/)`,
          fix: "run `fixpoint init` there",
        },
  );
  const config = cfg.config;
  checks.push(checkPrices(config));
  const scratchDir = await mkdtemp(join(tmpdir(), "fixpoint-doctor-"));
  try {
    // Some CLIs (Codex) refuse to run outside a git repository.
    try {
      await git.run(scratchDir, ["init", "-q"], { timeoutMs: 15_000 });
    } catch {
      // The git check above already failed and said why; the agent checks run without a repository.
    }
    const factories = { ...cliFactoriesOrEmpty(config), ...defaultFactories() };
    const deps = {
      runner,
      env: opts.env,
      factories,
      offline: opts.offline,
      timeoutMs: opts.timeoutMs,
      scratchDir,
      projectRoot: repo.root,
    };
    // One after another: round trips are light, but a machine with 2 cores runs CLIs slowly.
    for (const agent of Object.values(config.agents).sort((a, b) => a.name.localeCompare(b.name))) {
      checks.push(await checkAgent(agent, deps));
    }
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
  return checks;
}
