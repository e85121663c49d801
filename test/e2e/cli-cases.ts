import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClaudeCodeBackend } from "../../src/agents/claude-code.js";
import type { CliDeps } from "../../src/agents/cli-run.js";
import { createCodexBackend } from "../../src/agents/codex.js";
import { createPiBackend } from "../../src/agents/pi.js";
import type { AgentBackend } from "../../src/domain/agent.js";
import type { CliName } from "./cli-install.js";
import type { Usage } from "./fake-model/server.js";

/**
 * How each real CLI is pointed at the fake model server, isolated from the developer's own
 * configuration: its config folder in a temporary home, a test key, no retries of its own (so
 * the backend's retry is what the tests see).
 */
export interface CliCase {
  name: CliName;
  backend(bin: string, deps: Partial<CliDeps>): AgentBackend;
  /** The request's `env` (the agent's `env { … }` in a config). */
  env(url: string, home: string): Record<string, string>;
  extraArgs(url: string): string[];
  /** The cost the CLI should report (or fixpoint compute) for this usage. */
  expectedCost(usage: Usage, reportedUsd: number | undefined): number;
}

export const PI_PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

export const claudeCase: CliCase = {
  name: "claude-code",
  backend: (bin, deps) => createClaudeCodeBackend({ program: bin, deps }),
  env: (url, home) => ({
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CONFIG_DIR: join(home, "claude"),
    CLAUDE_CODE_MAX_RETRIES: "0",
  }),
  extraArgs: () => [],
  // Claude Code prices with its own table; the backend must pass its total_cost_usd on.
  expectedCost: (_u, reported) => reported ?? Number.NaN,
};

export const codexCase: CliCase = {
  name: "codex",
  backend: (bin, deps) => createCodexBackend({ program: bin, model: "gpt-5", deps }),
  env: (_url, home) => {
    const dir = join(home, "codex");
    mkdirSync(dir, { recursive: true });
    return { CODEX_HOME: dir, FAKE_KEY: "test" };
  },
  extraArgs: (url) => [
    "-c",
    "model_provider=fake",
    "-c",
    `model_providers.fake={name="fake",base_url="${url}/v1",env_key="FAKE_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
  ],
  // gpt-5 in the default price table: $1.25 in, $10 out, $0.125 cached, per million tokens.
  expectedCost: (u) => (u.input * 1.25 + u.output * 10 + u.cacheRead * 0.125 + u.cacheWrite * 1.25) / 1e6,
};

export const piCase: CliCase = {
  name: "pi",
  backend: (bin, deps) => createPiBackend({ program: bin, model: "fake/fake-model", deps }),
  env: (url, home) => {
    const dir = join(home, "pi");
    mkdirSync(dir, { recursive: true });
    const provider = {
      baseUrl: url,
      api: "anthropic-messages",
      apiKey: "FAKE_KEY",
      models: [{ id: "fake-model", cost: PI_PRICE }],
    };
    writeFileSync(join(dir, "models.json"), JSON.stringify({ providers: { fake: provider } }));
    writeFileSync(
      join(dir, "settings.json"),
      JSON.stringify({ retry: { enabled: false, provider: { maxRetries: 0 } } }),
    );
    return { PI_CODING_AGENT_DIR: dir, PI_OFFLINE: "1", FAKE_KEY: "test" };
  },
  extraArgs: () => [],
  expectedCost: (u) =>
    (u.input * PI_PRICE.input +
      u.output * PI_PRICE.output +
      u.cacheRead * PI_PRICE.cacheRead +
      u.cacheWrite * PI_PRICE.cacheWrite) /
    1e6,
};

export const CLI_CASES = [claudeCase, codexCase, piCase];
