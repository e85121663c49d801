import type { AgentBackendKind, AgentConfig, Config } from "../config/types.js";
import type { AgentBackend, AgentResolver, ResolvedAgent } from "../domain/agent.js";
import { FixpointError } from "../errors.js";
import { createCommandBackend } from "./command.js";
import { hasPrice, PRICED_BY_TABLE } from "./pricing.js";
import { loadScriptedBackend } from "./scripted.js";

/** Builds the backend of one configured agent. May throw FixpointError("config"). */
export type BackendFactory = (agent: AgentConfig) => AgentBackend | Promise<AgentBackend>;
export type BackendFactories = Partial<Record<AgentBackendKind, BackendFactory>>;

export interface AgentResolverOptions {
  factories: BackendFactories;
  /** Role → configured agent name, e.g. `{ implementer: "fast" }` from `fixpoint add --agent`. */
  overrides?: Record<string, string>;
}

/**
 * The backends this module knows. The CLI backends (claude-code, codex, pi) and the HTTP ones
 * live in their own files; a build that has them spreads their factories over this map.
 */
export function defaultFactories(opts: { baseEnv?: NodeJS.ProcessEnv } = {}): BackendFactories {
  return {
    command: (agent) => {
      if (!agent.command || agent.command.length === 0) {
        throw new FixpointError(
          "config",
          `agent \`${agent.name}\` uses backend "command" but has no command`,
        );
      }
      return createCommandBackend({
        command: agent.command,
        ...(opts.baseEnv ? { baseEnv: opts.baseEnv } : {}),
      });
    },
    scripted: (agent) => {
      if (!agent.script) {
        throw new FixpointError(
          "config",
          `agent \`${agent.name}\` uses backend "scripted" but has no script`,
        );
      }
      return loadScriptedBackend(agent.script);
    },
  };
}

function unknownAgent(name: string, config: Config): FixpointError {
  const names = Object.keys(config.agents);
  const known = names.length > 0 ? names.join(", ") : "none";
  return new FixpointError("config", `unknown agent \`${name}\` (configured: ${known})`);
}

/**
 * Builds every configured agent's backend up front (so a scripted module loads once and config
 * mistakes show before any work starts) and returns a synchronous resolver. An agent whose
 * backend kind has no factory in this build fails only when something resolves it, so a config
 * that lists an agent it never uses still works.
 */
export async function createAgentResolver(
  config: Config,
  opts: AgentResolverOptions,
): Promise<AgentResolver> {
  const overrides = opts.overrides ?? {};
  for (const target of Object.values(overrides)) {
    if (!Object.hasOwn(config.agents, target)) throw unknownAgent(target, config);
  }

  const backends = new Map<string, AgentBackend>();
  for (const [name, agent] of Object.entries(config.agents)) {
    const factory = opts.factories[agent.backend];
    if (factory) backends.set(name, await factory(agent));
  }

  return {
    resolve(name: string): ResolvedAgent {
      const target = overrides[name] ?? name;
      const agent = Object.hasOwn(config.agents, target) ? config.agents[target] : undefined;
      if (!agent) throw unknownAgent(target, config);
      const backend = backends.get(target);
      if (!backend) {
        throw new FixpointError(
          "config",
          `backend \`${agent.backend}\` is not available in this build (agent \`${target}\`)`,
        );
      }
      const resolved: ResolvedAgent = {
        name: target,
        backend,
        timeoutMs: agent.timeoutMs,
        env: { ...agent.env },
        extraArgs: [...agent.args],
      };
      if (agent.model !== undefined) resolved.model = agent.model;
      const unpriced = unpricedModel(agent, config);
      if (unpriced !== undefined) resolved.unpricedModel = unpriced;
      return resolved;
    },
  };
}

/** The model whose cost fixpoint cannot know for this agent (see ResolvedAgent.unpricedModel). */
export function unpricedModel(agent: AgentConfig, config: Pick<Config, "prices">): string | undefined {
  if (!PRICED_BY_TABLE.has(agent.backend)) return undefined;
  if (hasPrice(agent.model, config.prices)) return undefined;
  return agent.model ?? `${agent.backend}'s default model`;
}
