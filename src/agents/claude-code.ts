import type { AgentConfig } from "../config/types.js";
import type { AgentBackend, AgentRequest } from "../domain/agent.js";
import { type CliDeps, cliDeps, runCli } from "./cli-run.js";
import { parseClaudeLine } from "./streams/claude-stream.js";

/**
 * Claude Code: `claude -p --output-format stream-json --verbose`, the prompt on stdin.
 * `--json-schema` makes the structured answer arrive in the result event's `structured_output`.
 * Permissions follow the config: `bypassPermissions` (or `dangerously-skip-permissions`) becomes
 * `--dangerously-skip-permissions`, which Claude Code refuses as root unless `IS_SANDBOX=1`;
 * any other mode is passed as `--permission-mode`; the default is `acceptEdits`, so an unattended
 * run can edit files but not run arbitrary commands.
 */
export interface ClaudeCodeOptions {
  /** The executable; default `claude` on PATH. */
  program?: string;
  model?: string;
  permissionMode?: string;
  deps?: Partial<CliDeps>;
}

const BYPASS = new Set(["bypassPermissions", "dangerously-skip-permissions", "bypass"]);

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

export function claudeArgs(
  req: AgentRequest,
  opts: ClaudeCodeOptions,
): { args: string[]; env: Record<string, string> } {
  const args = ["-p", "--output-format", "stream-json", "--verbose"];
  const env: Record<string, string> = {};
  const model = req.model ?? opts.model;
  if (model) args.push("--model", model);
  if (req.sessionId) args.push("--resume", req.sessionId);
  if (req.schema) args.push("--json-schema", JSON.stringify(req.schema));
  const mode = opts.permissionMode ?? "acceptEdits";
  if (BYPASS.has(mode)) {
    args.push("--dangerously-skip-permissions");
    if (isRoot()) env.IS_SANDBOX = "1";
  } else {
    args.push("--permission-mode", mode);
  }
  args.push(...(req.extraArgs ?? []));
  return { args, env };
}

export function createClaudeCodeBackend(opts: ClaudeCodeOptions = {}): AgentBackend {
  const deps = cliDeps(opts.deps);
  const program = opts.program ?? "claude";
  return {
    kind: "claude-code",
    supportsSessions: true,
    reportsResponseStart: true,
    run: (req) => {
      const { args, env } = claudeArgs(req, opts);
      return runCli(deps, req, { program, args, env, input: req.prompt, parse: parseClaudeLine });
    },
  };
}

export function claudeCodeFromConfig(agent: AgentConfig, deps?: Partial<CliDeps>): AgentBackend {
  return createClaudeCodeBackend({
    ...(agent.command?.[0] ? { program: agent.command[0] } : {}),
    ...(agent.model ? { model: agent.model } : {}),
    ...(agent.permissionMode ? { permissionMode: agent.permissionMode } : {}),
    ...(deps ? { deps } : {}),
  });
}
