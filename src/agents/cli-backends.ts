import type { AgentBackendKind, AgentConfig, ModelPrice } from "../config/types.js";
import type { AgentBackend } from "../domain/agent.js";
import { anthropicFromConfig } from "./anthropic-api.js";
import { claudeCodeFromConfig } from "./claude-code.js";
import type { CliDeps } from "./cli-run.js";
import { codexFromConfig } from "./codex.js";
import type { HttpDeps } from "./http-run.js";
import { openaiFromConfig } from "./openai-api.js";
import { piFromConfig } from "./pi.js";

export interface CliFactoryOptions {
  /** The config's `prices { … }`, on top of the default table (Codex and the HTTP backends). */
  prices?: Record<string, ModelPrice>;
  cliDeps?: Partial<CliDeps>;
  httpDeps?: Partial<HttpDeps>;
}

/** Factories of the agent-CLI and HTTP backends, to merge into the resolver's factories. */
export function cliFactories(
  opts: CliFactoryOptions = {},
): Partial<Record<AgentBackendKind, (agent: AgentConfig) => AgentBackend>> {
  const prices = opts.prices ?? {};
  return {
    "claude-code": (agent) => claudeCodeFromConfig(agent, opts.cliDeps),
    codex: (agent) => codexFromConfig(agent, prices, opts.cliDeps),
    pi: (agent) => piFromConfig(agent, opts.cliDeps),
    anthropic: (agent) => anthropicFromConfig(agent, prices, opts.httpDeps),
    openai: (agent) => openaiFromConfig(agent, prices, opts.httpDeps),
  };
}
