import type { Severity } from "../domain/types.js";

/**
 * The resolved configuration (SPEC §5): user file < project `fixpoint.kdl` < `FIXPOINT_*`
 * environment < flags. Durations are milliseconds. Syntax and keys: docs/configuration.md.
 */
export interface Config {
  agents: Record<string, AgentConfig>;
  defaults: DefaultsConfig;
  gates: GateConfig[];
  database: DatabaseConfig;
  /** Root folder for task worktrees; default `$FIXPOINT_HOME/worktrees` (`~/.fixpoint/worktrees`). */
  worktrees: string;
  /** Extra USD prices per million tokens by model, for backends that report no cost. */
  prices: Record<string, ModelPrice>;
  github: GithubConfig | null;
  /**
   * `notify "…"`: who to tell when a task reaches a final verdict or needs a person. An http(s)
   * URL gets a JSON POST; anything else is a command run as `sh -c` (src/notify/notifier.ts).
   */
  notify?: string;
  /** Files the config was read from, lowest precedence first. */
  sources: string[];
}

export const AGENT_BACKENDS = [
  "command",
  "scripted",
  "claude-code",
  "codex",
  "pi",
  "anthropic",
  "openai",
] as const;
export type AgentBackendKind = (typeof AGENT_BACKENDS)[number];

export interface AgentConfig {
  name: string;
  backend: AgentBackendKind;
  model?: string;
  timeoutMs: number;
  /** command backend: the executable and its arguments. */
  command?: string[];
  /** scripted backend: path of an ES module whose default export answers requests. */
  script?: string;
  /** HTTP backends: base URL. */
  baseUrl?: string;
  args: string[];
  env: Record<string, string>;
  /** claude-code/codex: permission or sandbox mode as the CLI spells it. */
  permissionMode?: string;
  sandbox?: string;
  /** Byte budget of this agent's review/fix prompts; overrides `defaults prompt-budget`. */
  promptBudget?: number;
}

export interface DefaultsConfig {
  workflow: string;
  maxCycles: number;
  blockingSeverity: Severity;
  budget: { usd?: number; tokens?: number };
  /** Non-blocking findings become follow-ups when the loop ends. */
  followups: boolean;
  /** Token budget of the "Outstanding Review Findings" section. */
  findingsTokenBudget: number;
  /** Byte budget of every reviewer and fixer prompt (`prompt-budget`); absent = DEFAULT_PROMPT_BUDGET. */
  promptBudget?: number;
  /**
   * Most stages one run may execute (`max-stages`; a workflow's own `max-stages` wins); absent =
   * DEFAULT_MAX_STAGES. A run that would go past it stops and names the limit.
   */
  maxStages?: number;
  /** Default base branch; when absent, the repository's current branch at `add` time. */
  baseBranch?: string;
  /**
   * Remote every task branch is pushed to after each stage that committed, so a worker on another
   * machine can take a task over (`push-remote "origin"`). Absent: branches stay local (one machine).
   */
  pushRemote?: string;
  /**
   * Environment variables whose values are secrets: redacted from everything stored, shown,
   * posted or logged (on top of GITHUB_TOKEN, GH_TOKEN, ANTHROPIC_API_KEY, OPENAI_API_KEY).
   */
  redactEnv?: string[];
}

export interface GateConfig {
  name: string;
  /** Shell string, run with `sh -c` in the worktree. Never has untrusted text interpolated. */
  run: string;
  timeoutMs: number;
}

export interface DatabaseConfig {
  /** `sqlite` (the default file `.fixpoint/fixpoint.db`), a sqlite file path, or `postgres://…`. */
  url: string;
}

export interface ModelPrice {
  inputPerM: number;
  outputPerM: number;
  cacheReadPerM?: number;
  cacheWritePerM?: number;
}

/** A configured review bot: its default severity and a resolve/re-review command it understands. */
export interface BotSetting {
  severity?: Severity;
  command?: string;
}

export interface GithubConfig {
  repo: string;
  baseUrl?: string;
  allowAuthors: string[];
  bots: string[];
  /** Per bot login (see `bots { … }`): default severity and the command added to replies. */
  botSettings?: Record<string, BotSetting>;
  maxReworkCycles: number;
  commentTimeoutMs: number;
  label: string;
  techDebtLabel: string;
  notify?: string;
  resolveHumanThreads: boolean;
  draft: boolean;
  waitForReview: boolean;
}
