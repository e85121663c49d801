import { cliFactories } from "../agents/cli-backends.js";
import type { BackendFactories } from "../agents/resolver.js";
import type { Config } from "../config/types.js";
import type { AgentBackend, AgentRequest, AgentResult } from "../domain/agent.js";

/**
 * The CLI and HTTP backends (claude-code, codex, pi, anthropic, openai) as the resolver's
 * factories, priced with the config's `prices { … }`. Each CLI backend is wrapped so that a run
 * which failed because the session it was asked to continue no longer exists says so with the
 * failure kind `session_not_found`; the engine then starts a fresh session (agent-turn.ts).
 */
export function cliFactoriesOrEmpty(
  config: Pick<Config, "prices">,
  baseEnv?: NodeJS.ProcessEnv,
): BackendFactories {
  const base = cliFactories({
    prices: config.prices,
    ...(baseEnv ? { cliDeps: { baseEnv }, httpDeps: { baseEnv } } : {}),
  });
  const out: BackendFactories = {};
  for (const [kind, make] of Object.entries(base)) {
    if (!make) continue;
    const words = STALE_SESSION[kind];
    out[kind as keyof BackendFactories] = words ? (agent) => detectStaleSession(make(agent), words) : make;
  }
  return out;
}

/**
 * What each CLI prints when the session to continue is unknown (checked against the pinned
 * versions in test/e2e/cli-install.ts):
 * - claude-code: a `result` event with `errors: ["No conversation found with session ID: X"]`,
 *   or, for an id that is not a UUID, "--resume requires a valid session ID …"; exit 1.
 * - codex: on stderr "Error: thread/resume: thread/resume failed: no rollout found for thread id
 *   X (code -32600)"; exit 1.
 * - pi: on stderr "No session found matching 'X'"; exit 1.
 */
export const STALE_SESSION: Record<string, RegExp> = {
  "claude-code": /No conversation found with session ID|--resume requires a valid session ID/i,
  codex: /no rollout found for thread|thread not found|session not found/i,
  pi: /No session found matching/i,
};

/** Re-labels a failed resume of an unknown session as `session_not_found`; anything else passes. */
export function detectStaleSession(backend: AgentBackend, words: RegExp): AgentBackend {
  return {
    kind: backend.kind,
    supportsSessions: backend.supportsSessions,
    run: async (req: AgentRequest): Promise<AgentResult> => {
      const result = await backend.run(req);
      const failure = result.failure;
      if (!req.sessionId || result.ok || !failure || !words.test(failure.message)) return result;
      // The id in the result is the unknown one echoed back: it names no session.
      const { sessionId: _unknown, ...rest } = result;
      return {
        ...rest,
        failure: {
          kind: "session_not_found",
          message: `session ${req.sessionId} could not be resumed: ${failure.message}`,
          transient: false,
        },
      };
    },
  };
}
