import { addUsage, type TokenUsage, ZERO_USAGE } from "../../domain/types.js";
import { redactSecrets } from "../../util/redact.js";

/**
 * What the agent CLIs' JSONL streams say, in one vocabulary. Each CLI has a pure parser
 * (`parseClaudeLine`, `parseCodexLine`, `parsePiLine`: one line → events, unknown or malformed
 * lines → no events) and every backend folds the events with `applyEvent` into a summary.
 */
export type StreamEvent =
  | { type: "session"; id: string }
  /** The text of one assistant message; the last one is the final answer. */
  | { type: "text"; text: string }
  | { type: "tool"; name: string; detail: string }
  /** Usage of one model call or turn, added to the total. */
  | { type: "usage"; usage: TokenUsage; costUsd?: number }
  /** The CLI's own final account; its totals replace the sum of the increments. */
  | {
      type: "result";
      isError: boolean;
      text?: string;
      structured?: unknown;
      usage?: TokenUsage;
      costUsd?: number;
      numTurns?: number;
      sessionId?: string;
      status?: number;
    }
  | { type: "error"; message: string; status?: number }
  /** The run ended normally (a turn completed, the agent loop ended). */
  | { type: "done" };

export interface StreamSummary {
  text: string;
  structured?: unknown;
  sessionId?: string;
  usage: TokenUsage;
  /** Undefined when the stream carried no cost at all (Codex): the backend prices the usage. */
  costUsd?: number;
  numTurns?: number;
  /** The agent reported a failure in its stream. */
  error?: { message: string; status?: number };
  /** A final result or end-of-run marker was seen: a stream cut short has none. */
  complete: boolean;
  toolCalls: number;
  turns: number;
}

export function emptySummary(): StreamSummary {
  return { text: "", usage: { ...ZERO_USAGE }, complete: false, toolCalls: 0, turns: 0 };
}

/** Pure reducer: folds one event into the summary. */
export function applyEvent(s: StreamSummary, e: StreamEvent): StreamSummary {
  switch (e.type) {
    case "session":
      return { ...s, sessionId: e.id };
    case "text":
      return e.text.trim() === "" ? s : { ...s, text: e.text };
    case "tool":
      return { ...s, toolCalls: s.toolCalls + 1 };
    case "usage": {
      const cost = e.costUsd === undefined ? s.costUsd : (s.costUsd ?? 0) + e.costUsd;
      return {
        ...s,
        usage: addUsage(s.usage, e.usage),
        turns: s.turns + 1,
        ...(cost === undefined ? {} : { costUsd: cost }),
      };
    }
    case "result":
      return applyResult(s, e);
    case "error":
      return { ...s, error: { message: e.message, ...(e.status === undefined ? {} : { status: e.status }) } };
    case "done":
      return { ...s, complete: true };
  }
}

function applyResult(s: StreamSummary, e: Extract<StreamEvent, { type: "result" }>): StreamSummary {
  const next: StreamSummary = { ...s, complete: true };
  if (e.text !== undefined && !e.isError) next.text = e.text;
  if (e.structured !== undefined) next.structured = e.structured;
  if (e.usage) next.usage = e.usage;
  if (e.costUsd !== undefined) next.costUsd = e.costUsd;
  if (e.numTurns !== undefined) next.numTurns = e.numTurns;
  if (e.sessionId) next.sessionId = e.sessionId;
  if (e.isError) {
    next.error = {
      message: e.text?.trim() || "the agent reported an error",
      ...(e.status ? { status: e.status } : {}),
    };
  }
  return next;
}

export function foldEvents(
  events: Iterable<StreamEvent>,
  start: StreamSummary = emptySummary(),
): StreamSummary {
  let s = start;
  for (const e of events) s = applyEvent(s, e);
  return s;
}

/** Parses one JSONL line into an object; anything else (blank, garbage, an array) is null. */
export function parseJsonLine(line: string): Record<string, unknown> | null {
  const t = line.trim();
  if (!t.startsWith("{")) return null;
  try {
    const v: unknown = JSON.parse(t);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function asObject(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function asNumber(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

export function asString(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** A short description of a tool call's input for the status line. */
export function toolDetail(input: unknown): string {
  const o = asObject(input);
  for (const key of ["file_path", "path", "command", "cmd", "pattern", "url", "description"]) {
    const found = o[key];
    // Redact before the cut: a command line can carry a token (`curl -H "Authorization: …"`).
    const v =
      typeof found === "string"
        ? redactSecrets(found)
        : Array.isArray(found)
          ? redactSecrets(found.join(" "))
          : found;
    if (typeof v === "string" && v !== "") return v.length > 120 ? `${v.slice(0, 117)}...` : v;
    if (Array.isArray(v)) return v.join(" ").slice(0, 120);
  }
  return "";
}
