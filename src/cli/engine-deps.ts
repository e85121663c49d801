import { join } from "node:path";
import { createAgentResolver, defaultFactories } from "../agents/resolver.js";
import type { EngineDeps } from "../engine/deps.js";
import type { EngineListener } from "../engine/events.js";
import { timerLeaseKeeper } from "../engine/lease-keeper.js";
import { createPromptLibrary } from "../engine/prompts.js";
import { fileExistsInside } from "../git/safe-path.js";
import { githubClientFor } from "../github/stage/client.js";
import { createGithubStageHandler } from "../github/stage/handler.js";
import { createThreadLeaseKeeper } from "../store/thread-lease-keeper.js";
import { systemClock } from "../util/clock.js";
import { createProcessRunner } from "../util/process-runner.js";
import { loadWorkflow } from "../workflow/loader.js";
import { cliFactoriesOrEmpty } from "./backends.js";
import type { Project } from "./project.js";

/** Wires the real adapters into the engine: the one place that knows them all. */
export async function buildEngineDeps(
  project: Project,
  listener: EngineListener,
  opts: { overrides?: Record<string, string> } = {},
): Promise<EngineDeps> {
  const factories = { ...cliFactoriesOrEmpty(project.config), ...defaultFactories() };
  const agents = await createAgentResolver(project.config, { factories, overrides: opts.overrides });
  const runner = createProcessRunner();
  const github = project.config.github;
  return {
    store: project.store,
    git: project.git,
    agents,
    config: project.config,
    clock: systemClock,
    runner,
    prompts: createPromptLibrary(project.root),
    fileExists: fileExistsInside,
    loadWorkflow: (name) => loadWorkflow(name, project.root),
    projectRoot: project.root,
    reviewsDir: join(project.dir, "reviews"),
    transcriptsDir: join(project.dir, "transcripts"),
    listener,
    env: process.env,
    // Leases are renewed from a thread of their own, so slow synchronous work never loses them.
    leaseKeeper: createThreadLeaseKeeper(
      { url: project.config.database.url, projectRoot: project.root },
      timerLeaseKeeper(project.store, systemClock),
    ),
    // The token is looked up when a github stage first runs: tasks without one never need it.
    ...(github
      ? {
          extraHandlers: {
            github: createGithubStageHandler({
              client: () => githubClientFor(github, process.env, runner),
              config: github,
              git: project.git,
              store: project.store,
              clock: systemClock,
              runner,
            }),
          },
        }
      : {}),
  };
}
