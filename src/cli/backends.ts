import type { BackendFactories } from "../agents/resolver.js";

/** The CLI and HTTP backends (claude-code, codex, pi, anthropic, openai). */
export function cliFactoriesOrEmpty(): BackendFactories {
  return {};
}
