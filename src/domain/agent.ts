import type { GroupScope } from "./process.js";
import type { TokenUsage } from "./types.js";

/**
 * The agent contract (SPEC §10). A backend turns one stage request into one result. `run` MUST
 * NOT throw for anything an agent can do (exit non-zero, print garbage, hang, hit an API error):
 * those come back as a result with `ok: false` and a failure. It may throw only on a programming
 * error in fixpoint itself.
 */
export interface AgentBackend {
  /** The backend kind: `command`, `scripted`, `claude-code`, `codex`, `pi`, `anthropic`, `openai`. */
  readonly kind: string;
  /** Whether `sessionId` in a request continues an earlier conversation. */
  readonly supportsSessions: boolean;
  /**
   * Whether `run` reports, through `onProgress` with `responseStarted`, the moment the provider
   * began its answer. A provider makes a prompt prefix that a request wrote to its cache readable
   * from then on; parallel reviewers wait for it so that only the first writes the prefix.
   */
  readonly reportsResponseStart?: boolean;
  run(request: AgentRequest): Promise<AgentResult>;
}

export type AgentRole = "implementer" | "reviewer" | "fixer" | (string & {});

export interface AgentRequest {
  /** The configured agent name (usually the role: implementer, reviewer, fixer). */
  agent: AgentRole;
  /** What the stage wants: drives structured-output schemas and scripted behaviour. */
  purpose: "implement" | "review" | "fix" | "other";
  taskId: string;
  stageId: string;
  cycle: number;
  prompt: string;
  /**
   * Offsets into `prompt` (UTF-16 indices, ascending) where a prefix ends that other requests
   * of the same task and cycle share: the reviewers of one cycle get byte-identical prompts up
   * to the last one (docs/prompts.md). A backend with explicit prompt caching marks a cache
   * breakpoint there (anthropic: `cache_control`, at most the provider's limit, the last ones
   * kept); others may ignore it, since the layout alone lets automatic prefix caches work.
   */
  cacheBreaks?: number[];
  /** The task's worktree: the agent works only here. */
  cwd: string;
  model?: string;
  /** JSON Schema for structured output (review and fix stages). */
  schema?: Record<string, unknown>;
  /** Continue this session/thread when the backend supports it. */
  sessionId?: string;
  timeoutMs: number;
  /** Extra environment on top of the (filtered) user environment. */
  env: Record<string, string>;
  /** Aborted on cancel (SIGINT/SIGTERM); the backend kills the whole process group. */
  signal: AbortSignal;
  /** Streams progress for the live status line. Must not throw. */
  onProgress?: (p: AgentProgress) => void;
  /** Where to write the transcript (JSONL or text), when the backend has one. */
  transcriptPath?: string;
  /**
   * Set by a caller that keeps the transcript itself (the engine stores it with the agent's
   * reply): the backend hands over the transcript's redacted text and leaves the file at
   * `transcriptPath` to the caller, who writes it with `write` when it chooses. Absent: the
   * file is written before `run` returns.
   */
  onTranscript?: (transcript: HandedTranscript) => void;
  /** Extra CLI arguments from the config. */
  extraArgs?: string[];
  /** The task's process groups: a backend that starts processes passes it on (ProcessSpec.groups). */
  groups?: GroupScope;
}

/** A transcript handed to the caller (AgentRequest.onTranscript). */
export interface HandedTranscript {
  /** The redacted text, as the file holds it. */
  text: string;
  /** Writes the file (owner-only, over an older one): an error message, or undefined once it is there. */
  write(): string | undefined;
}

export interface AgentProgress {
  kind: "tool" | "text" | "usage" | "status";
  message: string;
  usage?: TokenUsage;
  costUsd?: number;
  /** The provider has begun its answer (sent at most once per run; see reportsResponseStart). */
  responseStarted?: true;
}

export type AgentFailureKind =
  | "timeout"
  | "cancelled"
  | "exit_nonzero"
  | "auth"
  | "rate_limited"
  | "api_error"
  | "not_found"
  | "spawn_failed"
  /** The session asked for (`sessionId`) is unknown to the agent: lost or stale. */
  | "session_not_found";

export interface AgentFailure {
  kind: AgentFailureKind;
  /** One clear sentence: `timed out after 10m`, `agent exited 1: <last line>`. */
  message: string;
  /** Whether retrying the same request could help (429, 5xx, connection reset). */
  transient: boolean;
}

export interface AgentResult {
  ok: boolean;
  /** The final reply text. */
  text: string;
  /** The structured output when the backend delivered one (already parsed JSON). */
  structured?: unknown;
  sessionId?: string;
  usage: TokenUsage;
  costUsd: number;
  exitCode: number | null;
  failure?: AgentFailure;
  transcriptPath?: string;
  durationMs: number;
  numTurns?: number;
}

/** Resolves an agent name (from a stage or a task override) to a backend and its settings. */
export interface AgentResolver {
  resolve(name: string): ResolvedAgent;
}

export interface ResolvedAgent {
  name: string;
  backend: AgentBackend;
  model?: string;
  timeoutMs: number;
  env: Record<string, string>;
  extraArgs: string[];
  /**
   * Set when the backend's cost comes from fixpoint's price table (its stream reports none) and
   * the table has no price for the model, so its stages would cost $0: the model's name, or
   * `<backend>'s default model` when none is configured. Absent when the cost is known.
   */
  unpricedModel?: string;
}
