import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { agentEnvironment } from "../../agents/env.js";
import type { BackendFactories } from "../../agents/resolver.js";
import type { AgentConfig } from "../../config/types.js";
import type { AgentFailure } from "../../domain/agent.js";
import type { ProcessRunner } from "../../domain/process.js";
import { totalTokens } from "../../domain/types.js";
import { errorMessage } from "../../errors.js";
import { formatDuration } from "../../util/duration.js";
import type { Check } from "./check.js";

/**
 * Checks one configured agent: its executable (on PATH or the configured `command`), its
 * `--version`, and unless offline a one-token round trip through the real backend (for a CLI a
 * tiny prompt in a scratch repository with a short timeout; for an HTTP backend one request).
 */
export interface AgentCheckDeps {
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
  factories: BackendFactories;
  offline: boolean;
  /** Round-trip timeout (the agent's own timeout when shorter). */
  timeoutMs: number;
  /** An empty git repository the round trip runs in. */
  scratchDir: string;
  /** The repository a command agent's relative script paths are taken from (its worktrees mirror it). */
  projectRoot: string;
}

const CLIS: Record<string, { bin: string; pkg: string; login: string }> = {
  "claude-code": {
    bin: "claude",
    pkg: "@anthropic-ai/claude-code",
    login: "ANTHROPIC_API_KEY (or `claude` /login)",
  },
  codex: { bin: "codex", pkg: "@openai/codex", login: "OPENAI_API_KEY (or `codex login`)" },
  pi: { bin: "pi", pkg: "@mariozechner/pi-coding-agent", login: "the provider's key (or `pi` /login)" },
};

const HTTP: Record<string, { keys: string[]; baseVar: string; base: string }> = {
  anthropic: {
    keys: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    baseVar: "ANTHROPIC_BASE_URL",
    base: "https://api.anthropic.com",
  },
  openai: { keys: ["OPENAI_API_KEY"], baseVar: "OPENAI_BASE_URL", base: "https://api.openai.com/v1" },
};

const PROMPT =
  "This is a connectivity check by `fixpoint doctor`. Reply with the single word OK. Do not use any tools.";

/** The executable a program name resolves to: a path as given, else the first match on PATH. */
export function findExecutable(program: string, path: string | undefined): string | null {
  const executable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes("/")) return executable(program) ? program : null;
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir !== "" && executable(join(dir, program))) return join(dir, program);
  }
  return null;
}

export async function checkAgent(agent: AgentConfig, deps: AgentCheckDeps): Promise<Check> {
  const name = `agent ${agent.name}`;
  const env = agentEnvironment(deps.env, agent.env);
  const cli = CLIS[agent.backend];
  const http = HTTP[agent.backend];
  const parts: string[] = [agent.backend];
  if (cli) {
    const program = agent.command?.[0] ?? cli.bin;
    const path = findExecutable(program, env.PATH);
    if (!path) {
      const where = program.includes("/")
        ? `${program} does not exist or is not executable`
        : `\`${program}\` not found on PATH`;
      return {
        name,
        status: "fail",
        detail: `${agent.backend} · ${where}`,
        fix: `install it (npm install -g ${cli.pkg}) or set the agent's path: agent "${agent.name}" command="/path/to/${cli.bin}"`,
      };
    }
    const version = await deps.runner.run({
      command: path,
      args: ["--version"],
      cwd: deps.scratchDir,
      env,
      timeoutMs: 15_000,
    });
    const line = (version.stdout.trim() || version.stderr.trim()).split("\n")[0] ?? "";
    if (version.exitCode !== 0 || version.spawnError !== undefined) {
      return {
        name,
        status: "fail",
        detail: `${agent.backend} · ${path} · \`--version\` failed: ${version.spawnError ?? line}`,
        fix: `run \`${path} --version\` by hand to see what is wrong with the installation`,
      };
    }
    parts.push(path, line);
  } else if (http) {
    parts.push(agent.baseUrl ?? env[http.baseVar] ?? http.base);
    if (!http.keys.some((k) => env[k])) {
      return {
        name,
        status: "fail",
        detail: `${parts.join(" · ")} · no API key`,
        fix: `set ${http.keys.join(" or ")} in your environment or in the agent's env { }`,
      };
    }
  } else {
    return localAgent(agent, name, env, deps.projectRoot);
  }
  if (agent.model) parts.push(`model ${agent.model}`);
  if (deps.offline)
    return { name, status: "ok", detail: `${parts.join(" · ")} · round trip not run (--offline)` };
  return roundTrip(agent, name, parts, deps);
}

function localAgent(agent: AgentConfig, name: string, env: NodeJS.ProcessEnv, root: string): Check {
  if (agent.backend === "scripted") {
    const ok = agent.script !== undefined && existsSync(agent.script);
    return ok
      ? { name, status: "ok", detail: `scripted · ${agent.script}` }
      : {
          name,
          status: "fail",
          detail: `scripted · ${agent.script ?? "(no script)"} not found`,
          fix: `point script= of agent "${agent.name}" at an existing module`,
        };
  }
  const program = agent.command?.[0] ?? "";
  const path = program ? findExecutable(program, env.PATH) : null;
  const script = path ? missingScript(agent.command?.slice(1) ?? [], root) : null;
  if (script) {
    return {
      name,
      status: "fail",
      detail: `command · ${path} · script ${script} not found`,
      fix: `create it or fix command= of agent "${agent.name}" (a relative script is taken from the repository root)`,
    };
  }
  return path
    ? {
        name,
        status: "ok",
        detail: `command · ${path} · round trip not run (a command agent may change files)`,
      }
    : {
        name,
        status: "fail",
        detail: `command · \`${program}\` not found`,
        fix: `install it or fix command= of agent "${agent.name}"`,
      };
}

const SCRIPT = /\.(?:[cm]?[jt]s|py|sh|bash|rb|pl|php)$/i;

/**
 * The first argument of a command agent that names a script file (`node agent.mjs`) when that
 * file does not exist, else null. Flags and plain words are not paths and are not checked.
 */
export function missingScript(args: readonly string[], root: string): string | null {
  for (const arg of args) {
    if (arg.startsWith("-") || !(SCRIPT.test(arg) || isAbsolute(arg))) continue;
    return existsSync(resolve(root, arg)) ? null : arg;
  }
  return null;
}

async function roundTrip(
  agent: AgentConfig,
  name: string,
  parts: string[],
  deps: AgentCheckDeps,
): Promise<Check> {
  const timeoutMs = Math.min(deps.timeoutMs, agent.timeoutMs);
  try {
    const factory = deps.factories[agent.backend];
    if (!factory)
      return { name, status: "fail", detail: `${parts.join(" · ")} · backend not available in this build` };
    const backend = await factory(agent);
    const r = await backend.run({
      agent: agent.name,
      purpose: "other",
      taskId: "doctor",
      stageId: "doctor",
      cycle: 0,
      prompt: PROMPT,
      cwd: deps.scratchDir,
      ...(agent.model ? { model: agent.model } : {}),
      timeoutMs,
      env: agent.env,
      signal: new AbortController().signal,
      extraArgs: agent.args,
    });
    if (r.ok) {
      const cost = r.costUsd > 0 ? ` · $${r.costUsd.toFixed(4)}` : "";
      return {
        name,
        status: "ok",
        detail: `${parts.join(" · ")} · round trip ${(r.durationMs / 1000).toFixed(1)}s, ${totalTokens(r.usage)} tokens${cost}`,
      };
    }
    const failure = r.failure ?? { kind: "exit_nonzero", message: "failed", transient: false };
    return {
      name,
      status: failure.transient ? "warn" : "fail",
      detail: `${parts.join(" · ")} · round trip failed: ${failure.message}`,
      fix: fixFor(agent, failure, timeoutMs),
    };
  } catch (e) {
    return {
      name,
      status: "fail",
      detail: `${parts.join(" · ")} · ${errorMessage(e)}`,
      fix: "check the agent's settings in fixpoint.kdl",
    };
  }
}

function fixFor(agent: AgentConfig, f: AgentFailure, timeoutMs: number): string {
  const login = CLIS[agent.backend]?.login ?? HTTP[agent.backend]?.keys.join(" or ") ?? "the API key";
  switch (f.kind) {
    case "auth":
      return `check the credentials the agent uses: ${login}`;
    case "rate_limited":
      return "the API is rate limiting this key; fixpoint retries with backoff, but check your plan's limits";
    case "timeout":
      return `no answer within ${formatDuration(timeoutMs)}: check network access and the base URL (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, a proxy), or try --timeout`;
    case "api_error":
      return `the model API refused the request: check the model name${agent.model ? ` \`${agent.model}\`` : ""} and the base URL`;
    case "not_found":
      return `install the CLI (npm install -g ${CLIS[agent.backend]?.pkg ?? "…"})`;
    default:
      return "run the agent by hand with the same settings to see its full error";
  }
}
