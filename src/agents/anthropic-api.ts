import type { AgentConfig, ModelPrice } from "../config/types.js";
import type { AgentBackend, AgentRequest } from "../domain/agent.js";
import { jsonObjectFromText } from "../util/json-extract.js";
import { promptPieces } from "./cache-breaks.js";
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
import { claudeUsage } from "./streams/claude-stream.js";
import { asObject, asString } from "./streams/events.js";

/**
 * The Anthropic Messages API called directly (`POST {base}/v1/messages`), for review stages
 * that need no tools: the diff is in the prompt. The base URL comes from the config, else
 * `ANTHROPIC_BASE_URL`, else the public API, so a gateway or a local server works. The key is
 * `ANTHROPIC_API_KEY` (or `ANTHROPIC_AUTH_TOKEN`, sent as a bearer token). A schema is enforced
 * with the API's own structured output (`output_config.format` of type `json_schema`).
 */
export interface AnthropicApiOptions {
  baseUrl?: string;
  model?: string;
  maxTokens?: number;
  prices?: Record<string, ModelPrice>;
  deps?: Partial<HttpDeps>;
}

export const DEFAULT_ANTHROPIC_BASE = "https://api.anthropic.com";

/** The Messages API accepts at most this many `cache_control` breakpoints per request. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/**
 * The user message: the prompt as one string, or, when the request marks where its shared
 * prefix ends (`cacheBreaks`), as text blocks whose last block before each break carries
 * `cache_control`, so the prefix is written to the cache once and read by the cycle's other
 * reviewers and later cycles.
 */
function userContent(req: AgentRequest): string | Record<string, unknown>[] {
  const pieces = promptPieces(req, ANTHROPIC_MAX_BREAKPOINTS);
  if (!pieces.some((p) => p.cacheBreak)) return req.prompt;
  return pieces.map((p) => ({
    type: "text",
    text: p.text,
    ...(p.cacheBreak ? { cache_control: { type: "ephemeral" } } : {}),
  }));
}

export function anthropicBody(req: AgentRequest, model: string, maxTokens: number): Record<string, unknown> {
  return {
    model,
    max_tokens: maxTokens,
    messages: [{ role: "user", content: userContent(req) }],
    ...(req.schema ? { output_config: { format: { type: "json_schema", schema: req.schema } } } : {}),
  };
}

export function parseAnthropicReply(json: unknown, wantStructured: boolean): ParsedReply {
  const o = asObject(json);
  const content = Array.isArray(o.content) ? o.content : [];
  const text = content
    .map((b) => asObject(b))
    .filter((b) => b.type === "text")
    .map((b) => asString(b.text))
    .join("");
  const structured = wantStructured ? jsonObjectFromText(text) : undefined;
  return {
    text,
    usage: claudeUsage(o.usage),
    ...(structured === undefined ? {} : { structured }),
    ...(o.type === "error" ? { error: asString(asObject(o.error).message) || "API error" } : {}),
  };
}

export function createAnthropicApiBackend(opts: AnthropicApiOptions = {}): AgentBackend {
  const deps = httpDeps(opts.deps);
  return {
    kind: "anthropic",
    supportsSessions: false,
    reportsResponseStart: true,
    run: async (req) => {
      const env = httpEnv(deps, req);
      const model = req.model ?? opts.model;
      if (!model) return unconfigured("the anthropic backend needs a model (`model` in the agent's config)");
      const base = opts.baseUrl ?? env.ANTHROPIC_BASE_URL ?? DEFAULT_ANTHROPIC_BASE;
      const headers: Record<string, string> = { "anthropic-version": "2023-06-01" };
      if (env.ANTHROPIC_API_KEY) headers["x-api-key"] = env.ANTHROPIC_API_KEY;
      else if (env.ANTHROPIC_AUTH_TOKEN) headers.authorization = `Bearer ${env.ANTHROPIC_AUTH_TOKEN}`;
      return runHttp(deps, req, {
        url: apiUrl(base, "/messages"),
        headers,
        body: anthropicBody(req, model, opts.maxTokens ?? 16_000),
        parse: (json) => parseAnthropicReply(json, req.schema !== undefined),
        price: (usage) => costFromUsage(model, usage, opts.prices ?? {}),
      });
    },
  };
}

export function anthropicFromConfig(
  agent: AgentConfig,
  prices: Record<string, ModelPrice>,
  deps?: Partial<HttpDeps>,
): AgentBackend {
  return createAnthropicApiBackend({
    ...(agent.baseUrl ? { baseUrl: agent.baseUrl } : {}),
    ...(agent.model ? { model: agent.model } : {}),
    prices,
    ...(deps ? { deps } : {}),
  });
}
