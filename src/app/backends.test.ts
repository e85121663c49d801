import { describe, expect, it } from "vitest";
import type { AgentBackend, AgentFailure, AgentRequest, AgentResult } from "../domain/agent.js";
import { cliFactoriesOrEmpty, detectStaleSession, STALE_SESSION } from "./backends.js";

function failing(failure: AgentFailure, sessionId?: string): AgentBackend {
  return {
    kind: "fake",
    supportsSessions: true,
    run: async (): Promise<AgentResult> => ({
      ok: false,
      text: "",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0,
      exitCode: 1,
      failure,
      durationMs: 5,
      ...(sessionId ? { sessionId } : {}),
    }),
  };
}

function req(sessionId?: string): AgentRequest {
  return {
    agent: "fixer",
    purpose: "fix",
    taskId: "t-1",
    stageId: "fix",
    cycle: 1,
    prompt: "p",
    cwd: "/tmp",
    timeoutMs: 1000,
    env: {},
    signal: new AbortController().signal,
    ...(sessionId ? { sessionId } : {}),
  };
}

const ID = "11111111-2222-3333-4444-555555555555";

// The failures the pinned CLIs produce for an unknown session, as the backends word them.
const SAID: Record<string, string> = {
  "claude-code": `agent error: No conversation found with session ID: ${ID}`,
  codex: `agent exited 1: Error: thread/resume: thread/resume failed: no rollout found for thread id ${ID} (code -32600)`,
  pi: `agent exited 1: No session found matching '${ID}'`,
};

describe("detectStaleSession", () => {
  it.each(Object.entries(SAID))(
    "labels %s's unknown-session failure session_not_found",
    async (kind, message) => {
      const words = STALE_SESSION[kind] ?? /$^/;
      const backend = detectStaleSession(
        failing({ kind: "api_error", message, transient: false }, ID),
        words,
      );
      const r = await backend.run(req(ID));
      expect(r.failure).toEqual({
        kind: "session_not_found",
        message: `session ${ID} could not be resumed: ${message}`,
        transient: false,
      });
      // The echoed id names no session: it must not be stored as the agent's session.
      expect(r.sessionId).toBeUndefined();
    },
  );

  it("leaves other failures, and runs that asked for no session, as they were", async () => {
    const words = STALE_SESSION["claude-code"] ?? /$^/;
    const other = { kind: "api_error" as const, message: "API error 500: overloaded", transient: true };
    expect((await detectStaleSession(failing(other), words).run(req(ID))).failure).toEqual(other);
    const fresh = { kind: "api_error" as const, message: SAID["claude-code"] ?? "", transient: false };
    expect((await detectStaleSession(failing(fresh), words).run(req())).failure).toEqual(fresh);
  });

  it("wraps the three CLI backends and builds all five from the config", () => {
    const factories = cliFactoriesOrEmpty({ prices: {} });
    expect(Object.keys(factories).sort()).toEqual(["anthropic", "claude-code", "codex", "openai", "pi"]);
  });
});
