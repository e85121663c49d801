import type { TokenUsage } from "../../domain/types.js";
import { asNumber, asObject, asString, parseJsonLine, type StreamEvent } from "./events.js";

/**
 * `codex exec --json`: `thread.started` (the thread id to resume), `turn.started`,
 * `item.started|updated|completed` (agent_message, reasoning, command_execution, file_change,
 * mcp_tool_call, web_search, todo_list, error), `turn.completed` (usage), `turn.failed` and
 * `error`. Codex reports no cost. An `item.*` of type `error` is a warning (the turn goes on).
 */
export function parseCodexLine(line: string): StreamEvent[] {
  const o = parseJsonLine(line);
  if (!o) return [];
  switch (o.type) {
    case "thread.started":
      return typeof o.thread_id === "string" ? [{ type: "session", id: o.thread_id }] : [];
    case "item.started":
      return toolEvents(asObject(o.item));
    case "item.completed": {
      const item = asObject(o.item);
      return item.type === "agent_message" ? [{ type: "text", text: asString(item.text) }] : [];
    }
    case "turn.completed":
      return [{ type: "usage", usage: codexUsage(o.usage) }, { type: "done" }];
    case "turn.failed":
      return [{ type: "error", message: asString(asObject(o.error).message) || "turn failed" }];
    case "error": {
      const message = asString(o.message);
      // Stream reconnects are reported as `error` events; the turn may still complete.
      if (/^reconnecting/i.test(message)) return [];
      return [{ type: "error", message: message || "codex reported an error" }];
    }
    default:
      return [];
  }
}

function toolEvents(item: Record<string, unknown>): StreamEvent[] {
  switch (item.type) {
    case "command_execution":
      return [{ type: "tool", name: "exec", detail: asString(item.command) }];
    case "file_change": {
      const changes = Array.isArray(item.changes) ? item.changes : [];
      const paths = changes.map((c) => asString(asObject(c).path)).filter((p) => p !== "");
      return [{ type: "tool", name: "patch", detail: paths.join(", ") }];
    }
    case "mcp_tool_call":
      return [{ type: "tool", name: `${asString(item.server)}.${asString(item.tool)}`, detail: "" }];
    case "web_search":
      return [{ type: "tool", name: "web_search", detail: asString(item.query) }];
    default:
      return [];
  }
}

/** Codex counts cached tokens inside `input_tokens`; TokenUsage keeps them apart. */
export function codexUsage(u: unknown): TokenUsage {
  const o = asObject(u);
  const cached = asNumber(o.cached_input_tokens);
  return {
    input: Math.max(0, asNumber(o.input_tokens) - cached),
    output: asNumber(o.output_tokens),
    cacheRead: cached,
    cacheWrite: asNumber(o.cache_write_input_tokens),
  };
}
