import type { AgentProgress, AgentRequest, AgentResult } from "../domain/agent.js";
import type { ProcessRunner } from "../domain/process.js";
import { type TokenUsage, totalTokens } from "../domain/types.js";
import { type Clock, systemClock } from "../util/clock.js";
import { createProcessRunner } from "../util/process-runner.js";
import { redactSecrets } from "../util/redact.js";
import { AGENT_RETRY, type RetryPolicy, withRetry } from "../util/retry.js";
import { agentEnvironment } from "./env.js";
import { cliFailure } from "./failure.js";
import { applyEvent, emptySummary, type StreamEvent, type StreamSummary } from "./streams/events.js";
import { writeTranscript } from "./transcript.js";

/** What every CLI backend (claude-code, codex, pi) needs from the outside world. */
export interface CliDeps {
  runner: ProcessRunner;
  /** The user's environment the agent environment is built from. */
  baseEnv: NodeJS.ProcessEnv;
  clock: Clock;
  jitter: () => number;
  retry: RetryPolicy;
}

export function cliDeps(deps: Partial<CliDeps> = {}): CliDeps {
  return {
    runner: deps.runner ?? createProcessRunner(),
    baseEnv: deps.baseEnv ?? process.env,
    clock: deps.clock ?? systemClock,
    jitter: deps.jitter ?? Math.random,
    retry: deps.retry ?? AGENT_RETRY,
  };
}

export interface CliInvocation {
  program: string;
  args: string[];
  /** Written to stdin, which is then closed. */
  input: string;
  /** Variables the backend itself adds (e.g. `IS_SANDBOX`), under the request's own env. */
  env?: Record<string, string>;
  parse: (line: string) => StreamEvent[];
  /** Prices the usage when the stream carries no cost. */
  price?: (usage: TokenUsage) => number;
  /** Derives the structured output from the summary when the CLI has no native channel. */
  structured?: (s: StreamSummary) => unknown;
}

function emitProgress(req: AgentRequest, p: AgentProgress): void {
  try {
    req.onProgress?.(p);
  } catch {
    // onProgress must not throw; if it does, the agent run is not the one to pay for it.
  }
}

function progressOf(e: StreamEvent, s: StreamSummary): AgentProgress | undefined {
  switch (e.type) {
    case "tool":
      return { kind: "tool", message: e.detail ? `${e.name} ${e.detail}` : e.name };
    case "text":
      return { kind: "text", message: clip(redactSecrets(e.text), 120) };
    case "usage":
    case "result":
      return {
        kind: "usage",
        message: `${totalTokens(s.usage)} tokens`,
        usage: s.usage,
        ...(s.costUsd === undefined ? {} : { costUsd: s.costUsd }),
      };
    case "session":
      return { kind: "status", message: `session ${e.id}` };
    default:
      return undefined;
  }
}

async function attempt(
  deps: CliDeps,
  req: AgentRequest,
  inv: CliInvocation,
): Promise<{ result: AgentResult; summary: StreamSummary }> {
  let summary = emptySummary();
  // The model's first output (text, a tool call or usage) means its response has begun: a prompt
  // prefix the CLI wrote to the provider's cache is readable from now on (reportsResponseStart).
  let answering = false;
  const env = agentEnvironment(deps.baseEnv, { ...inv.env, ...req.env });
  const proc = await deps.runner.run({
    command: inv.program,
    args: inv.args,
    cwd: req.cwd,
    env,
    input: inv.input,
    timeoutMs: req.timeoutMs,
    signal: req.signal,
    groups: req.groups,
    onStdoutLine: (line) => {
      for (const e of inv.parse(line)) {
        summary = applyEvent(summary, e);
        const p = progressOf(e, summary);
        if (!p) continue;
        const first = !answering && p.kind !== "status";
        if (first) answering = true;
        emitProgress(req, first ? { ...p, responseStarted: true } : p);
      }
    },
  });
  const failure = cliFailure({
    process: proc,
    timeoutMs: req.timeoutMs,
    program: inv.program,
    complete: summary.complete,
    ...(summary.error ? { streamError: summary.error } : {}),
  });
  const structured = summary.structured ?? inv.structured?.(summary);
  let transcriptPath: string | undefined;
  if (req.transcriptPath) {
    const sections = [
      { title: `${inv.program} ${inv.args.join(" ")}`, body: inv.input },
      { title: "stream", body: proc.stdout },
      { title: "stderr", body: proc.stderr },
    ];
    const err = await writeTranscript(req.transcriptPath, sections, env, req.onTranscript);
    if (err === undefined) transcriptPath = req.transcriptPath;
  }
  const result: AgentResult = {
    ok: failure === undefined,
    text: summary.text,
    ...(structured === undefined ? {} : { structured }),
    ...(summary.sessionId ? { sessionId: summary.sessionId } : {}),
    usage: summary.usage,
    costUsd: summary.costUsd ?? inv.price?.(summary.usage) ?? 0,
    exitCode: proc.exitCode,
    ...(failure ? { failure } : {}),
    ...(transcriptPath ? { transcriptPath } : {}),
    durationMs: proc.durationMs,
    ...(summary.numTurns !== undefined
      ? { numTurns: summary.numTurns }
      : summary.turns > 0
        ? { numTurns: summary.turns }
        : {}),
  };
  return { result, summary };
}

/**
 * Runs one CLI invocation to an AgentResult. A transient failure (429, 5xx, connection reset)
 * is retried with backoff only when the attempt made no tool call: an agent that already ran a
 * tool may have changed files, and the engine must see that before anything runs again.
 */
export async function runCli(deps: CliDeps, req: AgentRequest, inv: CliInvocation): Promise<AgentResult> {
  const started = deps.clock.now();
  const last = await withRetry(() => attempt(deps, req, inv), {
    policy: deps.retry,
    deps: { clock: deps.clock, jitter: deps.jitter },
    signal: req.signal,
    shouldRetry: (o) => o.result.failure?.transient === true && o.summary.toolCalls === 0,
    onRetry: (o, n, delay) =>
      req.onProgress?.({
        kind: "status",
        message: `${o.result.failure?.message ?? "failed"}; retry ${n} in ${delay}ms`,
      }),
  });
  return { ...last.result, durationMs: Math.max(last.result.durationMs, deps.clock.now() - started) };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
