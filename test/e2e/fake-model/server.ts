import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { writeAnthropic, writeAnthropicError } from "./anthropic-wire.js";
import { anthropicConversation, chatConversation, responsesConversation } from "./conversation.js";
import { writeChat, writeOpenAIError, writeResponses } from "./openai-wire.js";
import { anthropicBlocks, type CacheCharge, type FakePromptCache } from "./prompt-cache.js";
import {
  type Conversation,
  type FakeScript,
  pickReply,
  type RecordedRequest,
  type WireApi,
} from "./script.js";

export type { Conversation, FakeScript, RecordedRequest, Reply, Rule, Usage } from "./script.js";
export { DEFAULT_USAGE } from "./script.js";

/**
 * A fake model server on 127.0.0.1 (random port) speaking the Anthropic Messages API
 * (`POST /v1/messages`), the OpenAI Responses API (`POST /v1/responses`) and Chat Completions
 * (`POST /v1/chat/completions`), streaming SSE when the request asks for it. Answers come from
 * the script (see script.ts). `HEAD /` and `GET /` answer 200 (clients probe reachability);
 * anything else is 404. `close()` also ends requests that are hanging.
 */
export interface FakeModel {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function apiOf(path: string): WireApi | null {
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/chat/completions")) return "chat";
  return null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function conversationOf(api: WireApi, body: Record<string, unknown>): Conversation {
  if (api === "anthropic") return anthropicConversation(body);
  if (api === "responses") return responsesConversation(body);
  return chatConversation(body);
}

/**
 * With `cache`, usage comes from the fake prompt cache (prompt-cache.ts) instead of the script,
 * and each answer sends its headers `firstByteMs` after the request (the model reading the
 * prompt) and its body `answerDelayMs` later: the response has begun, and its cache entries are
 * readable, while the model is still "generating".
 */
export interface FakeModelOptions {
  cache?: FakePromptCache;
  firstByteMs?: number;
  answerDelayMs?: number;
}

function cacheCharge(
  cache: FakePromptCache,
  api: WireApi,
  body: Record<string, unknown>,
  model: string,
): CacheCharge {
  if (api === "anthropic") return cache.anthropic(model, anthropicBlocks(body));
  const key = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
  const prompt = JSON.stringify(
    api === "responses" ? (body.instructions ?? "") + JSON.stringify(body.input) : body.messages,
  );
  return cache.openai(model, key, prompt);
}

export async function startFakeModel(script: FakeScript, opts: FakeModelOptions = {}): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      // Not JSON: recorded as text.
    }
    const record: RecordedRequest = { method: req.method ?? "", path, headers: req.headers, body };
    requests.push(record);
    const api = apiOf(path);
    if (req.method !== "POST" || api === null) {
      res.writeHead(req.method === "HEAD" || (req.method === "GET" && path === "/") ? 200 : 404);
      res.end();
      return;
    }
    const json = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
    const conv = conversationOf(api, json);
    const picked = pickReply(script, conv);
    const { rule } = picked;
    let reply = picked.reply;
    const id = String(++counter);
    if ("hang" in reply) {
      Object.assign(record, { conversation: conv, rule, reply });
      return; // keep the socket open; close() destroys it
    }
    if (opts.cache && !("error" in reply)) {
      const charge = cacheCharge(opts.cache, api, json, conv.model);
      const output = "usage" in reply && reply.usage ? reply.usage.output : 30;
      reply = {
        ...reply,
        usage: { input: charge.input, output, cacheRead: charge.cacheRead, cacheWrite: charge.cacheWrite },
      };
      await new Promise((r) => setTimeout(r, opts.firstByteMs ?? 0));
      res.writeHead(200, { "content-type": conv.stream ? "text/event-stream" : "application/json" });
      res.flushHeaders();
      charge.begin();
      await new Promise((r) => setTimeout(r, opts.answerDelayMs ?? 0));
      // The wire writers set their own head; it has gone out already.
      res.writeHead = (() => res) as typeof res.writeHead;
    }
    Object.assign(record, { conversation: conv, rule, reply });
    if ("error" in reply) {
      if (api === "anthropic") writeAnthropicError(res, reply.error.status, reply.error.message);
      else writeOpenAIError(res, reply.error.status, reply.error.message);
      return;
    }
    if (api === "anthropic") writeAnthropic(res, reply, conv.model, conv.stream, id);
    else if (api === "responses") writeResponses(res, reply, conv.model, conv.stream, id);
    else writeChat(res, reply, conv.model, conv.stream, id);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`fake model failed: ${e instanceof Error ? e.message : String(e)}`);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
