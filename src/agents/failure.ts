import type { AgentFailure } from "../domain/agent.js";
import type { ProcessResult } from "../domain/process.js";
import { formatDuration } from "../util/duration.js";
import { redactSecrets } from "../util/redact.js";

/**
 * Turns what went wrong in an agent run into one clear sentence and a failure kind:
 * `auth failed: …`, `rate limited: …`, `API error 500: …`, `timed out after 10m`,
 * `agent exited 1: <last line>`. Pure functions of the process result and the stream.
 */

const MAX_MESSAGE = 300;

export function oneLine(text: string): string {
  // Redact before the cut: a cut can leave a token prefix no pattern recognises.
  const t = redactSecrets(text).replace(/\s+/g, " ").trim();
  return t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE - 3)}...` : t;
}

/** An HTTP status named in an error message (`API Error: 500`, `status 429 Too Many`). */
export function statusInMessage(message: string): number | undefined {
  const m =
    /\b(?:status(?: code)?|API Error|HTTP)[:\s]+([45]\d\d)\b/i.exec(message) ?? /^([45]\d\d)\b/.exec(message);
  return m?.[1] ? Number(m[1]) : undefined;
}

const CONNECTION =
  /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|socket hang up|connection (?:error|reset|refused|closed)|fetch failed|stream disconnected|network error/i;

/** The status an API's error `type`/`code` stands for (Anthropic and OpenAI spellings). */
const ERROR_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
};

/**
 * A message that is itself an API error body (`{"error":{"message":…,"type":…}}`, as Codex
 * passes it on) becomes its inner message and the status its type stands for.
 */
export function unwrapErrorBody(message: string): { message: string; status?: number } {
  // pi words it `400 {"type":"error",…}`: the status, then the body.
  const prefixed = /^([45]\d\d)\s+(\{[\s\S]*\})\s*$/.exec(message.trim());
  if (prefixed?.[1] && prefixed[2]) return { ...unwrapErrorBody(prefixed[2]), status: Number(prefixed[1]) };
  const t = message.trim();
  if (!t.startsWith("{")) return { message };
  try {
    const body: unknown = JSON.parse(t);
    const o = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
    const err = typeof o.error === "object" && o.error !== null ? (o.error as Record<string, unknown>) : o;
    const inner = typeof err.message === "string" ? err.message : message;
    const type = [err.type, err.code].find(
      (v): v is string => typeof v === "string" && v in ERROR_TYPE_STATUS,
    );
    return { message: inner, ...(type ? { status: ERROR_TYPE_STATUS[type] } : {}) };
  } catch {
    return { message };
  }
}

/** How Codex words a 5xx it gave up on, without the status. */
const SERVER_BUSY =
  /high demand|temporar(?:y|ily) (?:errors?|unavailable)|try again later|service unavailable/i;

/** Classifies an API failure reported by an agent's stream or an HTTP response. */
export function apiFailure(raw: string, status?: number): AgentFailure {
  const unwrapped = unwrapErrorBody(raw);
  const code = status ?? unwrapped.status ?? statusInMessage(oneLine(unwrapped.message));
  // Claude Code words it `API Error: 400 <message>`; the status is said once, in front.
  const text =
    oneLine(unwrapped.message).replace(/^API Error:?\s*(?:[45]\d\d\b)?\s*/i, "") || "unknown error";
  if (
    code === 401 ||
    code === 403 ||
    /authenticat|unauthori[sz]ed|invalid (?:x-)?api[ -]key|permission denied/i.test(text)
  ) {
    return { kind: "auth", message: `auth failed: ${text}`, transient: false };
  }
  if (code === 429 || /rate[ _-]?limit|too many requests/i.test(text)) {
    return { kind: "rate_limited", message: `rate limited: ${text}`, transient: true };
  }
  if (
    (code !== undefined && code >= 500) ||
    /overloaded|internal server error/i.test(text) ||
    SERVER_BUSY.test(text)
  ) {
    return { kind: "api_error", message: `API error ${code ?? "5xx"}: ${text}`, transient: true };
  }
  if (code !== undefined)
    return { kind: "api_error", message: `API error ${code}: ${text}`, transient: false };
  if (CONNECTION.test(text))
    return { kind: "api_error", message: `connection failed: ${text}`, transient: true };
  return { kind: "api_error", message: `agent error: ${text}`, transient: false };
}

/** The last non-empty line of `text`, skipping JSON lines (stream events are not messages). */
export function lastLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i] ?? "";
    if (l !== "" && !l.startsWith("{")) return oneLine(l);
  }
  return "";
}

export interface RunOutcome {
  process: ProcessResult;
  timeoutMs: number;
  program: string;
  /** The stream's own error, if it reported one. */
  streamError?: { message: string; status?: number };
  /** Whether the stream reached its final result or end marker. */
  complete: boolean;
}

/** The failure of a CLI run, or undefined when it succeeded. */
export function cliFailure(o: RunOutcome): AgentFailure | undefined {
  const p = o.process;
  if (p.spawnError !== undefined) {
    return p.spawnError === "not found"
      ? {
          kind: "not_found",
          message: `${o.program} not found (is it installed and on PATH? \`fixpoint doctor\` checks every agent)`,
          transient: false,
        }
      : { kind: "spawn_failed", message: `cannot start ${o.program}: ${p.spawnError}`, transient: false };
  }
  if (p.timedOut)
    return { kind: "timeout", message: `timed out after ${formatDuration(o.timeoutMs)}`, transient: false };
  if (p.cancelled) return { kind: "cancelled", message: "cancelled", transient: false };
  if (o.streamError) return apiFailure(o.streamError.message, o.streamError.status);
  const last = lastLine(p.stderr) || lastLine(p.stdout);
  if (p.exitCode !== 0) {
    const how = p.exitCode === null ? `was killed by ${p.signal ?? "a signal"}` : `exited ${p.exitCode}`;
    // A CLI that dies on an API error often says so only on stderr.
    const api = statusInMessage(last) !== undefined || CONNECTION.test(last) ? apiFailure(last) : undefined;
    return (
      api ?? { kind: "exit_nonzero", message: `agent ${how}${last ? `: ${last}` : ""}`, transient: false }
    );
  }
  if (!o.complete) {
    return {
      kind: "exit_nonzero",
      message: `agent ended without a final result (stream cut short)${last ? `: ${last}` : ""}`,
      transient: false,
    };
  }
  return undefined;
}
