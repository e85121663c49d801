/**
 * The fake model's script: a list of rules matched against the CONVERSATION STATE of each
 * request (what the prompt asks for, whether the last message is a tool result), never against a
 * request count, because real clients send side requests (titles, quota probes, retries).
 *
 * DSL:
 *   startFakeModel({ rules: [
 *     { name: "write", when: (c) => c.firstUserText.includes("WRITE") && !c.lastIsToolResult,
 *       reply: { toolCall: { name: "Write", input: { file_path: "x", content: "y" } } } },
 *     { name: "done", when: (c) => c.lastIsToolResult, reply: { text: "done" } },
 *   ], fallback: { text: "ok" } })
 *
 * The first rule whose `when` holds answers; `reply` may be a function of the conversation.
 * Every answer reports `usage` (default DEFAULT_USAGE) in the API's own wire format.
 */

export type WireApi = "anthropic" | "responses" | "chat";

export interface ConvMessage {
  role: "system" | "user" | "assistant" | "tool";
  /** All text of the message; tool calls as `[tool name] <input json>`, tool results as text. */
  text: string;
  /** Set when the message is (or carries) a tool result. */
  toolResult?: boolean;
}

export interface Conversation {
  api: WireApi;
  model: string;
  stream: boolean;
  /** System prompt text (top-level `system`/`instructions`, and system/developer messages). */
  system: string;
  messages: ConvMessage[];
  /**
   * Text of the user messages before the first answer: the prompt, with whatever context the
   * client put around it (Codex sends its environment context as a separate user message).
   */
  firstUserText: string;
  /** Text of the last user message that is not a tool result. */
  lastUserText: string;
  lastIsToolResult: boolean;
  /** Names of the tools offered. */
  tools: string[];
  /** A JSON schema requested for the final answer through the API's own structured output. */
  schema?: Record<string, unknown>;
  /** Every message's text joined: the whole transcript the client sent. */
  transcript: string;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const DEFAULT_USAGE: Usage = { input: 120, output: 30, cacheRead: 0, cacheWrite: 0 };

export type Reply =
  | { text: string; usage?: Usage }
  | { toolCall: { name: string; input: Record<string, unknown> }; text?: string; usage?: Usage }
  | { error: { status: number; message: string } }
  /** Accept the request and never answer (until the server closes). */
  | { hang: true };

export interface Rule {
  name?: string;
  when: (c: Conversation) => boolean;
  reply: Reply | ((c: Conversation) => Reply);
}

export interface FakeScript {
  rules: Rule[];
  /** When no rule matches; default `{ text: "ok" }`. */
  fallback?: Reply;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  conversation?: Conversation;
  /** The name (or index) of the rule that answered, `fallback` otherwise. */
  rule?: string;
  reply?: Reply;
}

export function pickReply(script: FakeScript, c: Conversation): { rule: string; reply: Reply } {
  for (const [i, rule] of script.rules.entries()) {
    if (rule.when(c)) {
      const reply = typeof rule.reply === "function" ? rule.reply(c) : rule.reply;
      return { rule: rule.name ?? String(i), reply };
    }
  }
  return { rule: "fallback", reply: script.fallback ?? { text: "ok" } };
}

export function usageOf(reply: Reply): Usage {
  return "text" in reply || "toolCall" in reply ? (reply.usage ?? DEFAULT_USAGE) : DEFAULT_USAGE;
}

/** The usage as the wire API can state it: OpenAI's formats have no cache-write count. */
export function wireUsage(api: WireApi, reply: Reply): Usage {
  const u = usageOf(reply);
  return api === "anthropic" ? u : { ...u, cacheWrite: 0 };
}
