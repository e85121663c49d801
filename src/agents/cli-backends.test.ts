import { describe, expect, it } from "vitest";
import type { AgentRequest } from "../domain/agent.js";
import type { ProcessResult, ProcessRunner, ProcessSpec } from "../domain/process.js";
import { claudeArgs } from "./claude-code.js";
import { cliFactories } from "./cli-backends.js";
import { codexArgs } from "./codex.js";
import { piArgs } from "./pi.js";

function req(over: Partial<AgentRequest> = {}): AgentRequest {
  return {
    agent: "implementer",
    purpose: "implement",
    taskId: "t",
    stageId: "s",
    cycle: 1,
    prompt: "review",
    cwd: "/tmp",
    timeoutMs: 1000,
    env: { AGENT_VAR: "1" },
    signal: new AbortController().signal,
    ...over,
  };
}

/** A runner that plays canned stdout lines per call and records each spec. */
function cannedRunner(
  runs: { lines: string[]; exitCode: number }[],
): ProcessRunner & { specs: ProcessSpec[] } {
  const specs: ProcessSpec[] = [];
  return {
    specs,
    run: async (spec): Promise<ProcessResult> => {
      const r = runs[specs.length] ?? { lines: [], exitCode: 0 };
      specs.push(spec);
      for (const l of r.lines) spec.onStdoutLine?.(l);
      return {
        exitCode: r.exitCode,
        signal: null,
        stdout: r.lines.join("\n"),
        stderr: "",
        timedOut: false,
        cancelled: false,
        durationMs: 1,
      };
    },
  };
}

const claudeResult = (extra: string) =>
  `{"type":"result","session_id":"s1","result":"done","usage":{"input_tokens":5,"output_tokens":2},"total_cost_usd":0.01,${extra}}`;
const overloaded =
  '{"type":"result","is_error":true,"api_error_status":529,"result":"API Error: 529 Overloaded"}';
const toolUse =
  '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}';

describe("CLI arguments", () => {
  it("claude: stream-json, resume, schema, and bypass with IS_SANDBOX only as root", () => {
    const { args, env } = claudeArgs(req({ sessionId: "abc", schema: { type: "object" }, model: "opus" }), {
      permissionMode: "bypassPermissions",
    });
    expect(args.slice(0, 4)).toEqual(["-p", "--output-format", "stream-json", "--verbose"]);
    expect(args).toEqual(
      expect.arrayContaining(["--resume", "abc", "--model", "opus", "--json-schema", '{"type":"object"}']),
    );
    expect(args).toContain("--dangerously-skip-permissions");
    expect(env.IS_SANDBOX === "1").toBe(process.getuid?.() === 0);
    expect(claudeArgs(req(), {}).args).toEqual(expect.arrayContaining(["--permission-mode", "acceptEdits"]));
  });

  it("codex: the prompt never becomes an argument; resume puts the thread id before `-`", () => {
    const args = codexArgs(req({ sessionId: "th-1" }), { sandbox: "workspace-write" }, "/s.json");
    expect(args.slice(0, 3)).toEqual(["exec", "resume", "--json"]);
    expect(args.slice(-2)).toEqual(["th-1", "-"]);
    expect(args).toEqual(
      expect.arrayContaining(["--output-schema", "/s.json", "-c", 'sandbox_mode="workspace-write"']),
    );
    expect(args).not.toContain("review");
    expect(codexArgs(req(), { sandbox: "none" }, undefined)).toContain(
      "--dangerously-bypass-approvals-and-sandbox",
    );
  });

  it("pi: json mode, provider/model and session", () => {
    expect(piArgs(req({ model: "fake/m", sessionId: "p1" }), {})).toEqual([
      "-p",
      "--mode",
      "json",
      "--model",
      "fake/m",
      "--session",
      "p1",
    ]);
  });
});

describe("CLI backend runs (canned process runner)", () => {
  const deps = (runner: ProcessRunner) => ({
    runner,
    baseEnv: {
      PATH: "/bin",
      GITHUB_TOKEN: "ghp_secret",
      FIXPOINT_DATABASE_PASSWORD: "pw",
      ANTHROPIC_BASE_URL: "http://x",
    },
    clock: { now: () => 0, sleep: async () => {} },
    jitter: () => 0,
    retry: { attempts: 3, baseMs: 1, maxMs: 1 },
  });
  const claude = (runner: ProcessRunner) => cliFactories({ cliDeps: deps(runner) })["claude-code"];

  it("passes the user's environment minus fixpoint's secrets, plus the agent's env", async () => {
    const runner = cannedRunner([{ lines: [claudeResult('"is_error":false')], exitCode: 0 }]);
    const backend = claude(runner)?.({
      name: "impl",
      backend: "claude-code",
      timeoutMs: 1,
      args: [],
      env: {},
    });
    const result = await backend?.run(req());
    expect(result).toMatchObject({ ok: true, text: "done", sessionId: "s1", costUsd: 0.01 });
    const env = runner.specs[0]?.env ?? {};
    expect(env.ANTHROPIC_BASE_URL).toBe("http://x");
    expect(env.AGENT_VAR).toBe("1");
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.FIXPOINT_DATABASE_PASSWORD).toBeUndefined();
    expect(runner.specs[0]?.input).toBe("review");
  });

  it("retries a transient API failure when no tool ran, but not after a tool call", async () => {
    const runner = cannedRunner([
      { lines: [overloaded], exitCode: 1 },
      { lines: [claudeResult('"is_error":false')], exitCode: 0 },
    ]);
    const ok = await claude(runner)?.({
      name: "a",
      backend: "claude-code",
      timeoutMs: 1,
      args: [],
      env: {},
    }).run(req());
    expect(runner.specs).toHaveLength(2);
    expect(ok?.ok).toBe(true);

    const touched = cannedRunner([{ lines: [toolUse, overloaded], exitCode: 1 }]);
    const failed = await claude(touched)?.({
      name: "a",
      backend: "claude-code",
      timeoutMs: 1,
      args: [],
      env: {},
    }).run(req());
    expect(touched.specs).toHaveLength(1);
    expect(failed?.failure).toEqual({
      kind: "api_error",
      message: "API error 529: Overloaded",
      transient: true,
    });
  });

  it("prices Codex usage from the table extended by the config", async () => {
    const lines = [
      '{"type":"thread.started","thread_id":"th"}',
      '{"type":"item.completed","item":{"type":"agent_message","text":"hi"}}',
      '{"type":"turn.completed","usage":{"input_tokens":2000000,"cached_input_tokens":0,"output_tokens":1000000}}',
    ];
    const runner = cannedRunner([{ lines, exitCode: 0 }]);
    const factories = cliFactories({
      cliDeps: deps(runner),
      prices: { "local-coder": { inputPerM: 1, outputPerM: 3 } },
    });
    const backend = factories.codex?.({
      name: "c",
      backend: "codex",
      model: "local-coder",
      timeoutMs: 1,
      args: [],
      env: {},
    });
    const result = await backend?.run(req());
    expect(result).toMatchObject({ ok: true, text: "hi", sessionId: "th", costUsd: 5 });
  });

  it("reports once, at the model's first output, that its response has begun", async () => {
    const lines = [
      '{"type":"thread.started","thread_id":"th"}',
      '{"type":"item.completed","item":{"type":"agent_message","text":"first"}}',
      '{"type":"item.completed","item":{"type":"agent_message","text":"second"}}',
      '{"type":"turn.completed","usage":{"input_tokens":20,"cached_input_tokens":0,"output_tokens":10}}',
    ];
    const factories = cliFactories({ cliDeps: deps(cannedRunner([{ lines, exitCode: 0 }])) });
    const backend = await factories.codex?.({
      name: "c",
      backend: "codex",
      model: "gpt-5",
      timeoutMs: 1,
      args: [],
      env: {},
    });
    expect(backend?.reportsResponseStart).toBe(true);
    const seen: { message: string; started: boolean }[] = [];
    await backend?.run(
      req({ onProgress: (p) => seen.push({ message: p.message, started: p.responseStarted === true }) }),
    );
    expect(seen.filter((p) => p.started)).toEqual([{ message: "first", started: true }]);
    // The session line came before any output and does not count.
    expect(seen[0]).toEqual({ message: "session th", started: false });
  });
});
