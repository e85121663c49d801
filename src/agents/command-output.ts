import { type TokenUsage, ZERO_USAGE } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";

/**
 * The command backend's output protocol (docs/agents.md): when stdout — or its last non-empty
 * line — is a JSON object with any of `text`, `structured`, `session_id`, `usage`, `cost_usd`,
 * those fields are the reply; otherwise all of stdout is the reply text.
 */
export interface CommandOutput {
  text: string;
  structured?: unknown;
  sessionId?: string;
  usage: TokenUsage;
  costUsd: number;
}

const PROTOCOL_KEYS = ["text", "structured", "session_id", "usage", "cost_usd"];

function protocolObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined; // not JSON: plain text output, which is allowed
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  return PROTOCOL_KEYS.some((k) => k in obj) ? obj : undefined;
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;
}

/** Maps the Anthropic-style usage names the protocol uses onto ours. */
export function usageFromJson(v: unknown): TokenUsage {
  if (typeof v !== "object" || v === null) return { ...ZERO_USAGE };
  const u = v as Record<string, unknown>;
  return {
    input: count(u.input_tokens),
    output: count(u.output_tokens),
    cacheRead: count(u.cache_read_input_tokens),
    cacheWrite: count(u.cache_creation_input_tokens),
  };
}

function lastNonEmptyLine(text: string): { line: string; before: string } | undefined {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (line !== "") return { line, before: lines.slice(0, i).join("\n") };
  }
  return undefined;
}

export function parseCommandOutput(stdout: string): CommandOutput {
  let obj = protocolObject(stdout);
  // Text printed before a final JSON line is the reply text unless the JSON names one.
  let before = "";
  if (!obj) {
    const last = lastNonEmptyLine(stdout);
    if (last) {
      obj = protocolObject(last.line);
      before = last.before;
    }
  }
  if (!obj) return { text: stdout.trimEnd(), usage: { ...ZERO_USAGE }, costUsd: 0 };
  const out: CommandOutput = {
    text: typeof obj.text === "string" ? obj.text : before.trim(),
    usage: usageFromJson(obj.usage),
    costUsd: count(obj.cost_usd),
  };
  if (obj.structured !== undefined) out.structured = obj.structured;
  if (typeof obj.session_id === "string" && obj.session_id !== "") out.sessionId = obj.session_id;
  return out;
}

/** The last non-empty line of stderr, else of stdout: the likeliest reason for a failure. */
export function failureLine(stderr: string, stdout: string, max = 200): string {
  const raw = lastNonEmptyLine(stderr)?.line ?? lastNonEmptyLine(stdout)?.line ?? "";
  const line = redactSecrets(raw); // before the cut, so no prefix of a secret survives it
  return line.length > max ? line.slice(0, max) : line;
}
