import type { TokenUsage } from "../../domain/types.js";
import { asNumber, asObject, asString, parseJsonLine, type StreamEvent, toolDetail } from "./events.js";

/**
 * `pi -p --mode json`: a `session` header (the id to resume), then agent events. Each
 * assistant `message_end` carries that call's `usage` with its `cost.total` in USD; a
 * `stopReason` of `error` or `aborted` with `errorMessage` is a failure; `agent_end` ends the run.
 */
export function parsePiLine(line: string): StreamEvent[] {
  const o = parseJsonLine(line);
  if (!o) return [];
  switch (o.type) {
    case "session":
      return typeof o.id === "string" ? [{ type: "session", id: o.id }] : [];
    case "message_end":
      return messageEnd(asObject(o.message));
    case "tool_execution_start":
      return [{ type: "tool", name: asString(o.toolName), detail: toolDetail(o.args) }];
    case "agent_end":
      return [{ type: "done" }];
    default:
      return [];
  }
}

function messageEnd(m: Record<string, unknown>): StreamEvent[] {
  if (m.role !== "assistant") return [];
  const out: StreamEvent[] = [];
  const content = Array.isArray(m.content) ? m.content : [];
  const text = content
    .map((b) => asObject(b))
    .filter((b) => b.type === "text")
    .map((b) => asString(b.text))
    .join("");
  if (text !== "") out.push({ type: "text", text });
  if (m.usage !== undefined) {
    out.push({
      type: "usage",
      usage: piUsage(m.usage),
      costUsd: asNumber(asObject(asObject(m.usage).cost).total),
    });
  }
  if (m.stopReason === "error" || m.stopReason === "aborted") {
    out.push({ type: "error", message: asString(m.errorMessage) || `model call ${String(m.stopReason)}` });
  }
  return out;
}

export function piUsage(u: unknown): TokenUsage {
  const o = asObject(u);
  return {
    input: asNumber(o.input),
    output: asNumber(o.output),
    cacheRead: asNumber(o.cacheRead),
    cacheWrite: asNumber(o.cacheWrite),
  };
}
