import type { AgentConfig, ModelPrice } from "../config/types.js";
import type { AgentBackend, AgentRequest } from "../domain/agent.js";
import type { TokenUsage } from "../domain/types.js";
import { jsonObjectFromText } from "../util/json-extract.js";
import { promptCacheKey } from "./cache-breaks.js";
import {
  apiUrl,
  type HttpDeps,
  httpDeps,
  httpEnv,
  type ParsedReply,
  runHttp,
  unconfigured,
} from "./http-run.js";
import { costFromUsage } from "./pricing.js";
import { asNumber, asObject, asString } from "./streams/events.js";

/**
 * The OpenAI API called directly, for review stages that need no tools: the Responses API
 * (`POST {base}/responses`, the default) or Chat Completions (`POST {base}/chat/completions`,
 * with `args ["--wire-api=chat"]`), which most local model servers and gateways speak. The base
 * URL comes from the config, else `OPENAI_BASE_URL`, else the public API; the key is
 * `OPENAI_API_KEY`. A schema is enforced with the API's own JSON-schema output
 * (`text.format` / `response_format` of type `json_schema`).
 */
export type OpenAIWire = "responses" | "chat";

export interface OpenAIApiOptions {
  baseUrl?: string;
  model?: string;
  wire?: OpenAIWire;
  prices?: Record<string, ModelPrice>;
  deps?: Partial<HttpDeps>;
}

export const DEFAULT_OPENAI_BASE = "https://api.openai.com/v1";

export function openaiBody(req: AgentRequest, model: string, wire: OpenAIWire): Record<string, unknown> {
  const schema = req.schema;
  // OpenAI caches identical prefixes by itself; the key routes a cycle's reviewers, whose
  // prompts share their beginning (docs/prompts.md), to the same cache.
  const cacheKey = req.cacheBreaks?.length ? { prompt_cache_key: promptCacheKey(req) } : {};
  if (wire === "chat") {
    return {
      model,
      messages: [{ role: "user", content: req.prompt }],
      ...cacheKey,
      ...(schema
        ? { response_format: { type: "json_schema", json_schema: { name: "output", schema, strict: false } } }
        : {}),
    };
  }
  return {
    model,
    input: req.prompt,
    store: false,
    ...cacheKey,
    ...(schema ? { text: { format: { type: "json_schema", name: "output", schema, strict: false } } } : {}),
  };
}

/** OpenAI counts cached tokens inside the input count; TokenUsage keeps them apart. */
function usageOf(input: number, cached: number, output: number): TokenUsage {
  return { input: Math.max(0, input - cached), output, cacheRead: cached, cacheWrite: 0 };
}

export function parseResponsesReply(json: unknown, wantStructured: boolean): ParsedReply {
  const o = asObject(json);
  const texts: string[] = [];
  for (const raw of Array.isArray(o.output) ? o.output : []) {
    const item = asObject(raw);
    if (item.type !== "message") continue;
    for (const part of Array.isArray(item.content) ? item.content : []) {
      const p = asObject(part);
      if (p.type === "output_text") texts.push(asString(p.text));
      if (p.type === "refusal") texts.push(asString(p.refusal));
    }
  }
  const text = texts.join("");
  const u = asObject(o.usage);
  const usage = usageOf(
    asNumber(u.input_tokens),
    asNumber(asObject(u.input_tokens_details).cached_tokens),
    asNumber(u.output_tokens),
  );
  const structured = wantStructured ? jsonObjectFromText(text) : undefined;
  const failed = o.status === "failed" ? asString(asObject(o.error).message) || "response failed" : undefined;
  return {
    text,
    usage,
    ...(structured === undefined ? {} : { structured }),
    ...(failed ? { error: failed } : {}),
  };
}

export function parseChatReply(json: unknown, wantStructured: boolean): ParsedReply {
  const o = asObject(json);
  const choice = asObject(Array.isArray(o.choices) ? o.choices[0] : undefined);
  const text = asString(asObject(choice.message).content);
  const u = asObject(o.usage);
  const usage = usageOf(
    asNumber(u.prompt_tokens),
    asNumber(asObject(u.prompt_tokens_details).cached_tokens),
    asNumber(u.completion_tokens),
  );
  const structured = wantStructured ? jsonObjectFromText(text) : undefined;
  return { text, usage, ...(structured === undefined ? {} : { structured }) };
}

export function createOpenAIApiBackend(opts: OpenAIApiOptions = {}): AgentBackend {
  const deps = httpDeps(opts.deps);
  const wire = opts.wire ?? "responses";
  return {
    kind: "openai",
    supportsSessions: false,
    reportsResponseStart: true,
    run: async (req) => {
      const env = httpEnv(deps, req);
      const model = req.model ?? opts.model;
      if (!model) return unconfigured("the openai backend needs a model (`model` in the agent's config)");
      const base = opts.baseUrl ?? env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE;
      const headers: Record<string, string> = env.OPENAI_API_KEY
        ? { authorization: `Bearer ${env.OPENAI_API_KEY}` }
        : {};
      const want = req.schema !== undefined;
      return runHttp(deps, req, {
        url: apiUrl(base, wire === "chat" ? "/chat/completions" : "/responses"),
        headers,
        body: openaiBody(req, model, wire),
        parse: (json) => (wire === "chat" ? parseChatReply(json, want) : parseResponsesReply(json, want)),
        price: (usage) => costFromUsage(model, usage, opts.prices ?? {}),
      });
    },
  };
}

/** `args ["--wire-api=chat"]` (or `wire_api=chat`) selects Chat Completions. */
export function wireFromArgs(args: string[]): OpenAIWire {
  return args.some((a) => /^(?:--)?wire[-_]api=chat/.test(a)) ? "chat" : "responses";
}

export function openaiFromConfig(
  agent: AgentConfig,
  prices: Record<string, ModelPrice>,
  deps?: Partial<HttpDeps>,
): AgentBackend {
  return createOpenAIApiBackend({
    ...(agent.baseUrl ? { baseUrl: agent.baseUrl } : {}),
    ...(agent.model ? { model: agent.model } : {}),
    wire: wireFromArgs(agent.args),
    prices,
    ...(deps ? { deps } : {}),
  });
}
