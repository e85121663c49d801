import type { Conversation, ConvMessage, WireApi } from "./script.js";

/** Normalises the request body of each wire API into one `Conversation` the rules can read. */

type Json = Record<string, unknown>;

function obj(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Text of a content value: a string, or an array of parts with `text`/`content`. */
function contentText(v: unknown): string {
  if (typeof v === "string") return v;
  return arr(v)
    .map((p) => {
      const part = obj(p);
      if (typeof part.text === "string") return part.text;
      if (part.type === "tool_result") return contentText(part.content);
      if (part.type === "tool_use") return `[tool ${str(part.name)}] ${JSON.stringify(part.input)}`;
      return "";
    })
    .filter((t) => t !== "")
    .join("\n");
}

function finish(
  api: WireApi,
  body: Json,
  system: string[],
  messages: ConvMessage[],
  tools: string[],
  schema: unknown,
): Conversation {
  const users = messages.filter((m) => m.role === "user" && !m.toolResult);
  const firstAssistant = messages.findIndex((m) => m.role !== "user");
  const opening = messages.slice(0, firstAssistant < 0 ? messages.length : firstAssistant);
  const last = messages[messages.length - 1];
  const s = obj(schema);
  return {
    api,
    model: str(body.model),
    stream: body.stream === true,
    system: system.filter((t) => t !== "").join("\n"),
    messages,
    firstUserText: opening.map((m) => m.text).join("\n"),
    lastUserText: users[users.length - 1]?.text ?? "",
    lastIsToolResult: last?.toolResult === true,
    tools,
    ...(Object.keys(s).length > 0 ? { schema: s } : {}),
    transcript: [...system, ...messages.map((m) => m.text)].join("\n"),
  };
}

export function anthropicConversation(body: Json): Conversation {
  const system = [contentText(body.system)];
  const messages: ConvMessage[] = [];
  for (const raw of arr(body.messages)) {
    const m = obj(raw);
    const text = contentText(m.content);
    // Claude Code sends role:"system" entries inside `messages`; they are system text.
    if (m.role === "system") {
      system.push(text);
      continue;
    }
    const toolResult = arr(m.content).some((p) => obj(p).type === "tool_result");
    messages.push({
      role: m.role === "assistant" ? "assistant" : "user",
      text,
      ...(toolResult ? { toolResult } : {}),
    });
  }
  const tools = arr(body.tools).map((t) => str(obj(t).name));
  const format = obj(obj(body.output_config).format);
  const legacy = obj(body.output_format);
  return finish("anthropic", body, system, messages, tools, format.schema ?? legacy.schema);
}

function responsesItem(item: Json): ConvMessage | "system" | null {
  switch (item.type) {
    case "function_call":
    case "custom_tool_call":
      return {
        role: "assistant",
        text: `[tool ${str(item.name)}] ${str(item.arguments) || str(item.input)}`,
      };
    case "function_call_output":
    case "custom_tool_call_output":
      return { role: "tool", text: contentText(item.output), toolResult: true };
    case "reasoning":
      return null;
    default:
      if (item.role === "system" || item.role === "developer") return "system";
      if (item.role === undefined) return null;
      return { role: item.role === "assistant" ? "assistant" : "user", text: contentText(item.content) };
  }
}

export function responsesConversation(body: Json): Conversation {
  const system = [str(body.instructions)];
  const messages: ConvMessage[] = [];
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : arr(body.input);
  for (const raw of input) {
    const item = obj(raw);
    const m = responsesItem(item);
    if (m === "system") system.push(contentText(item.content));
    else if (m) messages.push(m);
  }
  const tools = arr(body.tools).map((t) => str(obj(t).name) || str(obj(t).type));
  const format = obj(obj(body.text).format);
  return finish(
    "responses",
    body,
    system,
    messages,
    tools,
    format.type === "json_schema" ? format.schema : undefined,
  );
}

export function chatConversation(body: Json): Conversation {
  const system: string[] = [];
  const messages: ConvMessage[] = [];
  for (const raw of arr(body.messages)) {
    const m = obj(raw);
    if (m.role === "system" || m.role === "developer") {
      system.push(contentText(m.content));
      continue;
    }
    if (m.role === "tool") {
      messages.push({ role: "tool", text: contentText(m.content), toolResult: true });
      continue;
    }
    const calls = arr(m.tool_calls).map((c) => {
      const f = obj(obj(c).function);
      return `[tool ${str(f.name)}] ${str(f.arguments)}`;
    });
    const text = [contentText(m.content), ...calls].filter((t) => t !== "").join("\n");
    messages.push({ role: m.role === "assistant" ? "assistant" : "user", text });
  }
  const tools = arr(body.tools).map((t) => str(obj(obj(t).function).name));
  const format = obj(body.response_format);
  const schema = format.type === "json_schema" ? obj(format.json_schema).schema : undefined;
  return finish("chat", body, system, messages, tools, schema);
}
