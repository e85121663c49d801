import { join } from "node:path";
import { createAgentResolver, defaultFactories } from "../agents/resolver.js";
import { DEFAULT_AGENT_TIMEOUT_MS } from "../config/defaults.js";
import type { Config } from "../config/types.js";
import type { AgentBackend, AgentResolver } from "../domain/agent.js";
import type { EngineDeps } from "../engine/deps.js";
import type { EngineListener } from "../engine/events.js";
import { timerLeaseKeeper } from "../engine/lease-keeper.js";
import { createPromptLibrary } from "../engine/prompts.js";
import { fileExistsInside } from "../git/safe-path.js";
import { githubClientFor } from "../github/stage/client.js";
import { createGithubStageHandler } from "../github/stage/handler.js";
import { createThreadLeaseKeeper } from "../store/thread-lease-keeper.js";
import { createProcessRunner } from "../util/process-runner.js";
import { loadWorkflow } from "../workflow/loader.js";
import { cliFactoriesOrEmpty } from "./backends.js";
import type { AppContext } from "./context.js";

export interface EngineWiring {
  /** Agent name → a backend that replaces the configured one (a library caller's own agent). */
  agents?: Readonly<Record<string, AgentBackend>>;
  /** `add --agent`-style role overrides: role → configured agent name. */
  overrides?: Record<string, string>;
}

/** Wires the real adapters into the engine: the one place that knows them all. */
export async function buildEngineDeps(
  ctx: Pick<AppContext, "store" | "git" | "config" | "clock" | "root" | "dir" | "env">,
  listener: EngineListener,
  wiring: EngineWiring = {},
): Promise<EngineDeps> {
  // Agents get the environment as the worker started, read once: scanning `process.env` for each
  // agent call cost a tenth of a no-op stage (issue 10). fixpoint never changes its environment.
  const baseEnv = { ...process.env };
  const factories = { ...cliFactoriesOrEmpty(ctx.config, baseEnv), ...defaultFactories({ baseEnv }) };
  const configured = await createAgentResolver(ctx.config, { factories, overrides: wiring.overrides });
  const agents = wiring.agents
    ? withCustomAgents(configured, ctx.config, wiring.agents, wiring.overrides)
    : configured;
  const runner = createProcessRunner();
  const github = ctx.config.github;
  return {
    store: ctx.store,
    git: ctx.git,
    agents,
    config: ctx.config,
    clock: ctx.clock,
    runner,
    prompts: createPromptLibrary(ctx.root),
    fileExists: fileExistsInside,
    loadWorkflow: (name) => loadWorkflow(name, ctx.root),
    projectRoot: ctx.root,
    reviewsDir: join(ctx.dir, "reviews"),
    transcriptsDir: join(ctx.dir, "transcripts"),
    listener,
    env: ctx.env,
    // Leases are renewed from a thread of their own, so slow synchronous work never loses them.
    leaseKeeper: createThreadLeaseKeeper(
      { url: ctx.config.database.url, projectRoot: ctx.root },
      timerLeaseKeeper(ctx.store, ctx.clock),
    ),
    // The token is looked up when a github stage first runs: tasks without one never need it.
    ...(github
      ? {
          extraHandlers: {
            github: createGithubStageHandler({
              client: () => githubClientFor(github, ctx.env, runner),
              config: github,
              git: ctx.git,
              store: ctx.store,
              clock: ctx.clock,
              runner,
            }),
          },
        }
      : {}),
  };
}

/**
 * Agents supplied in code win over the configured backend of the same name; the configured
 * agent's timeout, model, env and arguments still apply when there is one.
 */
function withCustomAgents(
  configured: AgentResolver,
  config: Config,
  custom: Readonly<Record<string, AgentBackend>>,
  overrides: Record<string, string> = {},
): AgentResolver {
  return {
    resolve(name) {
      const target = overrides[name] ?? name;
      const backend = Object.hasOwn(custom, target) ? custom[target] : undefined;
      if (!backend) return configured.resolve(name);
      const agent = Object.hasOwn(config.agents, target) ? config.agents[target] : undefined;
      return {
        name: target,
        backend,
        timeoutMs: agent?.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS,
        env: { ...agent?.env },
        extraArgs: [...(agent?.args ?? [])],
        ...(agent?.model !== undefined ? { model: agent.model } : {}),
      };
    },
  };
}
