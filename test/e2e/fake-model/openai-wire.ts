import type { ServerResponse } from "node:http";
import { type Reply, usageOf } from "./script.js";

/** Writes a reply in the OpenAI Responses or Chat Completions format (SSE when `stream`). */

type Answer = Exclude<Reply, { error: unknown } | { hang: true }>;

function sse(res: ServerResponse): (type: string, data: Record<string, unknown>) => void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let seq = 0;
  return (type, data) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  };
}

function responsesUsage(reply: Answer): Record<string, unknown> {
  const u = usageOf(reply);
  // OpenAI counts cached tokens inside input_tokens.
  const input = u.input + u.cacheRead;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + u.output,
  };
}

function responsesItems(reply: Answer, id: string): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (reply.text) {
    items.push({
      type: "message",
      id: `msg_${id}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  if ("toolCall" in reply) {
    items.push({
      type: "function_call",
      id: `fc_${id}`,
      call_id: `call_${id}`,
      name: reply.toolCall.name,
      arguments: JSON.stringify(reply.toolCall.input),
      status: "completed",
    });
  }
  return items;
}

export function writeResponses(
  res: ServerResponse,
  reply: Answer,
  model: string,
  stream: boolean,
  id: string,
): void {
  const output = responsesItems(reply, id);
  const base = { id: `resp_${id}`, object: "response", created_at: Math.floor(Date.now() / 1000), model };
  const done = { ...base, status: "completed", output, usage: responsesUsage(reply) };
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...done, output_text: reply.text ?? "" }));
    return;
  }
  const ev = sse(res);
  ev("response.created", { response: { ...base, status: "in_progress", output: [] } });
  ev("response.in_progress", { response: { ...base, status: "in_progress", output: [] } });
  for (const [output_index, item] of output.entries()) {
    if (item.type === "message") {
      ev("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const part = { type: "output_text", text: "", annotations: [] };
      ev("response.content_part.added", { output_index, item_id: item.id, content_index: 0, part });
      const text = reply.text ?? "";
      const half = Math.ceil(text.length / 2);
      for (const delta of [text.slice(0, half), text.slice(half)]) {
        ev("response.output_text.delta", { output_index, item_id: item.id, content_index: 0, delta });
      }
      ev("response.output_text.done", { output_index, item_id: item.id, content_index: 0, text });
      ev("response.content_part.done", {
        output_index,
        item_id: item.id,
        content_index: 0,
        part: { ...part, text },
      });
    } else {
      ev("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      ev("response.function_call_arguments.delta", { output_index, item_id: item.id, delta: item.arguments });
      ev("response.function_call_arguments.done", {
        output_index,
        item_id: item.id,
        arguments: item.arguments,
      });
    }
    ev("response.output_item.done", { output_index, item });
  }
  ev("response.completed", { response: done });
  res.end();
}

export function writeChat(
  res: ServerResponse,
  reply: Answer,
  model: string,
  stream: boolean,
  id: string,
): void {
  const u = usageOf(reply);
  const usage = {
    prompt_tokens: u.input + u.cacheRead,
    completion_tokens: u.output,
    total_tokens: u.input + u.cacheRead + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
  };
  const toolCalls =
    "toolCall" in reply
      ? [
          {
            id: `call_${id}`,
            type: "function",
            function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.input) },
          },
        ]
      : undefined;
  const finish = toolCalls ? "tool_calls" : "stop";
  const base = { id: `chatcmpl_${id}`, created: Math.floor(Date.now() / 1000), model };
  if (!stream) {
    const message = {
      role: "assistant",
      content: reply.text ?? null,
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (
    delta: Record<string, unknown>,
    finishReason: string | null,
    extra: Record<string, unknown> = {},
  ): void => {
    const data = {
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...extra,
    };
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  chunk({ role: "assistant", content: "" }, null);
  if (reply.text) chunk({ content: reply.text }, null);
  if (toolCalls) chunk({ tool_calls: toolCalls.map((c, index) => ({ index, ...c })) }, null);
  chunk({}, finish);
  chunk({}, null, { choices: [], usage });
  res.write("data: [DONE]\n\n");
  res.end();
}

export function writeOpenAIError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  const type =
    status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  res.end(JSON.stringify({ error: { message, type, code: type, param: null } }));
}
