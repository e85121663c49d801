import type { Node } from "@bgotink/kdl";
import type { DiagnosticSink } from "../util/kdl-diagnostics.js";
import {
  type FieldSchema,
  getHttpUrl,
  getList,
  getNumber,
  getString,
  readNodeFields,
} from "../util/kdl-fields.js";
import type { AgentLayer } from "./layer.js";
import { resolveCommand, resolvePath } from "./paths.js";
import { AGENT_BACKENDS, type AgentBackendKind } from "./types.js";

const AGENT_FIELDS: FieldSchema = {
  backend: AGENT_BACKENDS,
  model: "string",
  timeout: "duration",
  command: "list",
  script: "string",
  "base-url": "string",
  args: "list",
  "permission-mode": "string",
  sandbox: "string",
  "prompt-budget": "size",
};

export interface PathContext {
  /** Folder of the file being read: relative `script` and `command` paths start here. */
  baseDir: string;
  home: string;
}

/**
 * `agent "name" backend=… model=… timeout=… { args …; env { KEY "value" } }`.
 * Returns undefined when the node is too broken to name an agent (already reported).
 */
export function parseAgent(node: Node, sink: DiagnosticSink, paths: PathContext): AgentLayer | undefined {
  const f = readNodeFields(node, AGENT_FIELDS, { positional: ["name"], special: ["env"], block: true }, sink);
  const name = f.args[0];
  if (!f.complete || name === undefined) return undefined;
  const agent: AgentLayer = { name, location: sink.locate(node.name) };
  const backend = AGENT_BACKENDS.find((b) => b === getString(f, "backend"));
  if (backend !== undefined) agent.backend = backend satisfies AgentBackendKind;
  const model = getString(f, "model");
  if (model !== undefined) agent.model = model;
  const timeoutMs = getNumber(f, "timeout");
  if (timeoutMs !== undefined) agent.timeoutMs = timeoutMs;
  const command = getList(f, "command");
  if (command !== undefined) {
    if (command.length === 0)
      sink.report(f.where.get("command") ?? node.name, "`command` needs an executable");
    else agent.command = resolveCommand(command, paths.baseDir, paths.home);
  }
  const script = getString(f, "script");
  if (script !== undefined) agent.script = resolvePath(script, paths.baseDir, paths.home);
  const baseUrl = getHttpUrl(f, "base-url", node, sink);
  if (baseUrl !== undefined) agent.baseUrl = baseUrl;
  const args = getList(f, "args");
  if (args !== undefined) agent.args = args;
  const permissionMode = getString(f, "permission-mode");
  if (permissionMode !== undefined) agent.permissionMode = permissionMode;
  const sandbox = getString(f, "sandbox");
  if (sandbox !== undefined) agent.sandbox = sandbox;
  const promptBudget = getNumber(f, "prompt-budget");
  if (promptBudget !== undefined) agent.promptBudget = promptBudget;
  const envNodes = f.special;
  if (envNodes.length > 1 && envNodes[1] !== undefined) sink.report(envNodes[1].name, "`env` is given twice");
  if (envNodes[0] !== undefined) agent.env = parseEnv(envNodes[0], sink);
  return agent;
}

/** `env { KEY "value" … }`: names are the variable names, each with one string value. */
function parseEnv(node: Node, sink: DiagnosticSink): Record<string, string> {
  const env: Record<string, string> = {};
  if (node.entries[0] !== undefined)
    sink.report(node.entries[0], '`env` takes a block: env { NAME "value" }');
  for (const child of node.children?.nodes ?? []) {
    const key = child.getName();
    const entries = child.entries;
    const value = child.getArgument(0);
    if (key in env) sink.report(child.name, `environment variable \`${key}\` is set twice`);
    if (entries.length !== 1 || typeof value !== "string" || child.children !== null) {
      sink.report(child.name, `\`${key}\` in \`env\` needs exactly one string value, e.g. ${key} "value"`);
      continue;
    }
    env[key] = value;
  }
  return env;
}
