import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { defaultFactories } from "../../agents/resolver.js";
import { FixpointError } from "../../errors.js";
import { createGit } from "../../git/git-cli.js";
import { parseDuration } from "../../util/duration.js";
import { createProcessRunner } from "../../util/process-runner.js";
import { cliFactoriesOrEmpty } from "../backends.js";
import { checkAgent } from "../doctor/agent-check.js";
import { type Check, hasFailure, renderChecklist } from "../doctor/check.js";
import { checkConfig, checkGit, checkRepository, checkStore } from "../doctor/environment.js";
import { checkPrices } from "../doctor/price-check.js";
import { type Io, printJson } from "../io.js";

interface DoctorOptions {
  offline?: boolean;
  timeout: string;
  json?: boolean;
}

export function registerDoctor(program: Command, io: Io, exit: { code: number }): void {
  program
    .command("doctor")
    .description("check git, the store, the config and every configured agent; say what to fix")
    .option("--offline", "do not send the one-token round trip to each agent")
    .option("--timeout <duration>", "how long each round trip may take", "60s")
    .option("--json", "print the checks as JSON")
    .action(async (opts: DoctorOptions) => {
      const timeoutMs = parseDuration(opts.timeout);
      if (timeoutMs === null || timeoutMs <= 0)
        throw new FixpointError("usage", `--timeout: not a duration: ${opts.timeout} (e.g. 30s, 2m)`);
      const checks = await doctor(io, { offline: Boolean(opts.offline), timeoutMs });
      if (opts.json) printJson(io, { ok: !hasFailure(checks), checks });
      else io.out(renderChecklist(checks));
      // Something fixpoint needs is broken: an environment error (SPEC §4).
      if (hasFailure(checks)) exit.code = 3;
    });
}

/** Runs every check in order; a check that depends on a failed one is skipped, not failed twice. */
export async function doctor(io: Io, opts: { offline: boolean; timeoutMs: number }): Promise<Check[]> {
  const runner = createProcessRunner();
  const checks: Check[] = [await checkGit(runner, io.cwd, io.env)];
  const repo = await checkRepository(createGit(), io.cwd);
  checks.push(repo.check);
  if (!repo.root) return checks;
  const cfg = await checkConfig(repo.root, io.env, io.cwd);
  checks.push(cfg.check);
  if (!cfg.config) return checks;
  checks.push(await checkStore(cfg.config, repo.root));
  const config = cfg.config;
  checks.push(checkPrices(config));
  const scratchDir = await mkdtemp(join(tmpdir(), "fixpoint-doctor-"));
  try {
    // Some CLIs (Codex) refuse to run outside a git repository.
    await runner.run({
      command: "git",
      args: ["init", "-q"],
      cwd: scratchDir,
      env: io.env,
      timeoutMs: 15_000,
    });
    const factories = { ...cliFactoriesOrEmpty(config), ...defaultFactories() };
    const deps = {
      runner,
      env: io.env,
      factories,
      offline: opts.offline,
      timeoutMs: opts.timeoutMs,
      scratchDir,
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
