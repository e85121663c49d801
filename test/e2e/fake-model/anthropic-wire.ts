import type { ServerResponse } from "node:http";
import { type Reply, usageOf } from "./script.js";

/** Writes a reply in the Anthropic Messages API format: SSE when `stream`, JSON otherwise. */

type Answer = Exclude<Reply, { error: unknown } | { hang: true }>;

function blocks(reply: Answer, id: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (reply.text) out.push({ type: "text", text: reply.text });
  if ("toolCall" in reply) {
    out.push({ type: "tool_use", id: `toolu_${id}`, name: reply.toolCall.name, input: reply.toolCall.input });
  }
  return out;
}

function usageJson(reply: Answer): Record<string, number> {
  const u = usageOf(reply);
  return {
    input_tokens: u.input,
    output_tokens: u.output,
    cache_read_input_tokens: u.cacheRead,
    cache_creation_input_tokens: u.cacheWrite,
  };
}

export function writeAnthropic(
  res: ServerResponse,
  reply: Answer,
  model: string,
  stream: boolean,
  id: string,
): void {
  const content = blocks(reply, id);
  const stopReason = "toolCall" in reply ? "tool_use" : "end_turn";
  const usage = usageJson(reply);
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `msg_${id}`,
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: stopReason,
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const ev = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  ev("message_start", {
    message: {
      id: `msg_${id}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  for (const [index, block] of content.entries()) {
    if (block.type === "text") {
      ev("content_block_start", { index, content_block: { type: "text", text: "" } });
      const text = String(block.text);
      // Two deltas, so clients that concatenate deltas are exercised.
      const half = Math.ceil(text.length / 2);
      ev("content_block_delta", { index, delta: { type: "text_delta", text: text.slice(0, half) } });
      ev("content_block_delta", { index, delta: { type: "text_delta", text: text.slice(half) } });
    } else {
      ev("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      ev("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: json.slice(0, half) },
      });
      ev("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: json.slice(half) },
      });
    }
    ev("content_block_stop", { index });
  }
  ev("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage });
  ev("message_stop", {});
  res.end();
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  529: "overloaded_error",
};

export function writeAnthropicError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } }));
}
