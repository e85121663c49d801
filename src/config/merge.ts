import { type Diagnostic, DiagnosticsError, FixpointError, type SourceLocation } from "../errors.js";
import { DEFAULT_AGENT_TIMEOUT_MS, DEFAULT_GATE_TIMEOUT_MS, GITHUB_DEFAULTS } from "./defaults.js";
import type { AgentLayer, ConfigLayer, GateLayer, GithubLayer } from "./layer.js";
import type { AgentConfig, Config, DefaultsConfig, GateConfig, GithubConfig } from "./types.js";

/**
 * Lays the layers over each other, lowest first. Agents and gates merge by name: a later layer
 * replaces only the fields it sets (`args` and `env` are replaced whole, not appended). The
 * `github` section merges field by field. Finally every agent, gate and the github section must
 * be complete; problems point at the last node that touched the incomplete item.
 */
export function mergeLayers(layers: readonly ConfigLayer[], sources: string[]): Config {
  const agents = new Map<string, AgentLayer>();
  const gates = new Map<string, GateLayer>();
  let defaults: Partial<DefaultsConfig> = {};
  let github: GithubLayer | undefined;
  const config: Omit<Config, "agents" | "gates" | "defaults" | "github"> = {
    database: { url: "sqlite" },
    worktrees: "",
    prices: {},
    sources,
  };
  for (const layer of layers) {
    for (const agent of layer.agents) agents.set(agent.name, { ...agents.get(agent.name), ...agent });
    for (const gate of layer.gates) gates.set(gate.name, { ...gates.get(gate.name), ...gate });
    // Secret names add up across layers: a project file cannot un-name the user's secrets.
    const redactEnv = [...new Set([...(defaults.redactEnv ?? []), ...(layer.defaults.redactEnv ?? [])])];
    defaults = {
      ...defaults,
      ...layer.defaults,
      budget: { ...defaults.budget, ...layer.defaults.budget },
    };
    if (redactEnv.length > 0) defaults.redactEnv = redactEnv;
    if (layer.github !== undefined) github = { ...github, ...layer.github };
    if (layer.database !== undefined) config.database = { url: layer.database };
    if (layer.worktrees !== undefined) config.worktrees = layer.worktrees;
    if (layer.notify !== undefined) config.notify = layer.notify;
    config.prices = { ...config.prices, ...layer.prices };
  }
  const problems: Diagnostic[] = [];
  const result: Config = {
    ...config,
    agents: Object.fromEntries([...agents.values()].map((a) => [a.name, completeAgent(a, problems)])),
    gates: [...gates.values()].flatMap((g) => completeGate(g, problems)),
    defaults: completeDefaults(defaults),
    github: github === undefined ? null : completeGithub(github, problems),
  };
  if (problems.length > 0) throw new DiagnosticsError("config", problems);
  return result;
}

const NOWHERE: SourceLocation = { file: "(built-in defaults)", line: 1, column: 1 };

function completeAgent(a: AgentLayer, problems: Diagnostic[]): AgentConfig {
  const location = a.location ?? NOWHERE;
  if (a.backend === undefined) {
    problems.push({ location, message: `agent "${a.name}" needs a backend, e.g. backend="claude-code"` });
  } else if (a.backend === "command" && a.command === undefined) {
    problems.push({
      location,
      message: `agent "${a.name}" uses backend "command" and needs \`command "program" "arg"…\``,
    });
  } else if (a.backend === "scripted" && a.script === undefined) {
    problems.push({
      location,
      message: `agent "${a.name}" uses backend "scripted" and needs script="./file.mjs"`,
    });
  }
  const { location: _where, ...fields } = a;
  return {
    ...fields,
    backend: a.backend ?? "command",
    timeoutMs: a.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS,
    args: a.args ?? [],
    env: a.env ?? {},
  };
}

function completeGate(g: GateLayer, problems: Diagnostic[]): GateConfig[] {
  if (g.run === undefined) {
    problems.push({
      location: g.location ?? NOWHERE,
      message: `gate "${g.name}" needs run="…" (a shell command)`,
    });
    return [];
  }
  return [{ name: g.name, run: g.run, timeoutMs: g.timeoutMs ?? DEFAULT_GATE_TIMEOUT_MS }];
}

function completeDefaults(d: Partial<DefaultsConfig>): DefaultsConfig {
  const { workflow, maxCycles, blockingSeverity, followups, findingsTokenBudget } = d;
  if (
    workflow === undefined ||
    maxCycles === undefined ||
    blockingSeverity === undefined ||
    followups === undefined ||
    findingsTokenBudget === undefined
  ) {
    // The built-in layer sets all of these; reaching here means it was left out.
    throw new FixpointError("internal", "config defaults are incomplete: the built-in layer is missing");
  }
  const out: DefaultsConfig = {
    workflow,
    maxCycles,
    blockingSeverity,
    followups,
    findingsTokenBudget,
    budget: d.budget ?? {},
  };
  if (d.baseBranch !== undefined) out.baseBranch = d.baseBranch;
  if (d.pushRemote !== undefined) out.pushRemote = d.pushRemote;
  if (d.promptBudget !== undefined) out.promptBudget = d.promptBudget;
  if (d.maxStages !== undefined) out.maxStages = d.maxStages;
  if (d.redactEnv !== undefined) out.redactEnv = d.redactEnv;
  return out;
}

function completeGithub(g: GithubLayer, problems: Diagnostic[]): GithubConfig | null {
  const { location, ...fields } = g;
  if (fields.repo === undefined) {
    problems.push({ location: location ?? NOWHERE, message: '`github` needs repo="owner/name"' });
    return null;
  }
  return { ...GITHUB_DEFAULTS, ...fields, repo: fields.repo };
}
