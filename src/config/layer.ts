import type { SourceLocation } from "../errors.js";
import type { AgentBackendKind, DefaultsConfig, GithubConfig, ModelPrice } from "./types.js";

/**
 * One layer of configuration as read from one place (built-in defaults, the user file, the
 * project file, the environment, flags). Every field is optional: a layer says only what it
 * sets, and `mergeLayers` lays them over each other, later layers winning field by field.
 * Paths in a layer are already absolute.
 */
export interface ConfigLayer {
  /** Where the layer came from: a file path, or "built-in defaults", "environment", "flags". */
  source: string;
  agents: AgentLayer[];
  gates: GateLayer[];
  defaults: DefaultsLayer;
  database?: string;
  worktrees?: string;
  prices: Record<string, ModelPrice>;
  github?: GithubLayer;
  notify?: string;
}

/** Fields one layer sets for one agent; `location` is the node that set them. */
export interface AgentLayer {
  name: string;
  location?: SourceLocation;
  backend?: AgentBackendKind;
  model?: string;
  timeoutMs?: number;
  command?: string[];
  script?: string;
  baseUrl?: string;
  args?: string[];
  env?: Record<string, string>;
  permissionMode?: string;
  sandbox?: string;
  promptBudget?: number;
}

export interface GateLayer {
  name: string;
  location?: SourceLocation;
  run?: string;
  timeoutMs?: number;
}

export type DefaultsLayer = Partial<Omit<DefaultsConfig, "budget">> & {
  budget?: DefaultsConfig["budget"];
};

export type GithubLayer = Partial<GithubConfig> & { location?: SourceLocation };

export function emptyLayer(source: string): ConfigLayer {
  return { source, agents: [], gates: [], defaults: {}, prices: {} };
}
