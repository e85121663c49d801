import { join } from "node:path";
import type { ConfigLayer } from "./layer.js";
import type { GithubConfig } from "./types.js";

export const DEFAULT_AGENT_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_GATE_TIMEOUT_MS = 10 * 60_000;
/** `defaults prompt-budget` when no layer sets it (issue 10): every reviewer and fixer prompt fits. */
export const DEFAULT_PROMPT_BUDGET = 64 * 1024;
/** `defaults max-stages` when no layer or workflow sets it: far above any sane workflow's run. */
export const DEFAULT_MAX_STAGES = 10_000;

/** What a `github` node means for every field it leaves out. */
export const GITHUB_DEFAULTS: Omit<GithubConfig, "repo"> = {
  allowAuthors: [],
  bots: [],
  maxReworkCycles: 2,
  commentTimeoutMs: 30_000,
  label: "fixpoint",
  techDebtLabel: "tech-debt",
  resolveHumanThreads: false,
  draft: false,
  waitForReview: false,
};

/** The lowest layer: what fixpoint does with no config file at all. */
export function builtinLayer(fixpointHome: string): ConfigLayer {
  return {
    source: "built-in defaults",
    agents: [
      { name: "implementer", backend: "claude-code", timeoutMs: 30 * 60_000 },
      { name: "reviewer", backend: "claude-code", timeoutMs: 10 * 60_000 },
      { name: "fixer", backend: "claude-code", timeoutMs: 20 * 60_000 },
    ],
    gates: [],
    defaults: {
      workflow: "implement-review",
      maxCycles: 3,
      blockingSeverity: "P1",
      budget: {},
      followups: false,
      findingsTokenBudget: 6000,
    },
    database: "sqlite",
    worktrees: join(fixpointHome, "worktrees"),
    prices: {},
  };
}
