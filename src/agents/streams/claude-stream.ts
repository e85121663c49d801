import type { TokenUsage } from "../../domain/types.js";
import { asNumber, asObject, asString, parseJsonLine, type StreamEvent, toolDetail } from "./events.js";

/**
 * Claude Code's `--output-format stream-json --verbose` stream. Lines are read as JSON objects
 * by field name, never by key order. The `result` event is authoritative: `is_error` decides
 * failure (its `subtype` can say "success" on an API error), and it carries the totals
 * (`usage`, `total_cost_usd`, `num_turns`, `session_id`, `structured_output`).
 */
export function parseClaudeLine(line: string): StreamEvent[] {
  const o = parseJsonLine(line);
  if (!o) return [];
  switch (o.type) {
    case "system":
      return o.subtype === "init" && typeof o.session_id === "string"
        ? [{ type: "session", id: o.session_id }]
        : [];
    case "assistant":
      return assistantEvents(asObject(o.message));
    case "result":
      return [resultEvent(o)];
    default:
      // user (tool results), stream_event, rate-limit notices, hooks, …: nothing we account.
      return [];
  }
}

function assistantEvents(message: Record<string, unknown>): StreamEvent[] {
  const out: StreamEvent[] = [];
  const content = Array.isArray(message.content) ? message.content : [];
  const texts: string[] = [];
  for (const raw of content) {
    const block = asObject(raw);
    if (block.type === "text") texts.push(asString(block.text));
    else if (block.type === "tool_use") {
      out.push({ type: "tool", name: asString(block.name), detail: toolDetail(block.input) });
    }
  }
  if (texts.length > 0) out.unshift({ type: "text", text: texts.join("") });
  return out;
}

export function claudeUsage(u: unknown): TokenUsage {
  const o = asObject(u);
  return {
    input: asNumber(o.input_tokens),
    output: asNumber(o.output_tokens),
    cacheRead: asNumber(o.cache_read_input_tokens),
    cacheWrite: asNumber(o.cache_creation_input_tokens),
  };
}

function resultEvent(o: Record<string, unknown>): StreamEvent {
  const isError = o.is_error === true;
  const status = typeof o.api_error_status === "number" ? o.api_error_status : undefined;
  const errors = Array.isArray(o.errors) ? o.errors.filter((e) => typeof e === "string") : [];
  const text = typeof o.result === "string" ? o.result : errors.join("; ") || asString(o.subtype);
  return {
    type: "result",
    isError,
    text,
    ...(o.structured_output !== undefined && o.structured_output !== null
      ? { structured: o.structured_output }
      : {}),
    ...(o.usage !== undefined ? { usage: claudeUsage(o.usage) } : {}),
    ...(typeof o.total_cost_usd === "number" ? { costUsd: o.total_cost_usd } : {}),
    ...(typeof o.num_turns === "number" ? { numTurns: o.num_turns } : {}),
    ...(typeof o.session_id === "string" ? { sessionId: o.session_id } : {}),
    ...(status !== undefined ? { status } : {}),
  };
}
