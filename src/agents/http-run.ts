import type { AgentFailure, AgentRequest, AgentResult } from "../domain/agent.js";
import type { TokenUsage } from "../domain/types.js";
import { errorMessage } from "../errors.js";
import { type Clock, systemClock } from "../util/clock.js";
import { formatDuration } from "../util/duration.js";
import { AGENT_RETRY, type RetryPolicy, withRetry } from "../util/retry.js";
import { agentEnvironment } from "./env.js";
import { apiFailure, oneLine } from "./failure.js";
import { asObject, asString } from "./streams/events.js";

/** What the HTTP backends (anthropic, openai) need from the outside world. */
export interface HttpDeps {
  fetch: typeof fetch;
  /** The user's environment, where API keys and base URLs are looked up (under the request's env). */
  baseEnv: NodeJS.ProcessEnv;
  clock: Clock;
  jitter: () => number;
  retry: RetryPolicy;
}

export function httpDeps(deps: Partial<HttpDeps> = {}): HttpDeps {
  return {
    fetch: deps.fetch ?? globalThis.fetch,
    baseEnv: deps.baseEnv ?? process.env,
    clock: deps.clock ?? systemClock,
    jitter: deps.jitter ?? Math.random,
    retry: deps.retry ?? AGENT_RETRY,
  };
}

/** The request's environment as the HTTP backends see it (filtered user env + agent env). */
export function httpEnv(deps: HttpDeps, req: AgentRequest): NodeJS.ProcessEnv {
  return agentEnvironment(deps.baseEnv, req.env);
}

export interface ParsedReply {
  text: string;
  structured?: unknown;
  usage: TokenUsage;
  /** Set when the API answered 200 but the reply says the call failed. */
  error?: string;
}

export interface HttpCall {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  parse: (json: unknown) => ParsedReply;
  price: (usage: TokenUsage) => number;
  /** Called when a response's headers arrive (set by runHttp). */
  onResponseStart?: () => void;
}

type Attempt = { ok: true; reply: ParsedReply } | { ok: false; failure: AgentFailure };

async function once(deps: HttpDeps, req: AgentRequest, call: HttpCall): Promise<Attempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  const onAbort = (): void => controller.abort();
  req.signal.addEventListener("abort", onAbort, { once: true });
  if (req.signal.aborted) controller.abort();
  try {
    const res = await deps.fetch(call.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...call.headers },
      body: JSON.stringify(call.body),
      signal: controller.signal,
    });
    // The provider has begun its answer: a prefix this request wrote to its cache is readable now.
    if (res.ok) call.onResponseStart?.();
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const message = asString(asObject(asObject(json).error).message) || oneLine(text) || res.statusText;
      return { ok: false, failure: apiFailure(message, res.status) };
    }
    if (json === undefined)
      return { ok: false, failure: apiFailure(`unreadable response: ${oneLine(text)}`) };
    const reply = call.parse(json);
    return reply.error ? { ok: false, failure: apiFailure(reply.error) } : { ok: true, reply };
  } catch (e) {
    if (timedOut)
      return {
        ok: false,
        failure: {
          kind: "timeout",
          message: `timed out after ${formatDuration(req.timeoutMs)}`,
          transient: false,
        },
      };
    if (req.signal.aborted)
      return { ok: false, failure: { kind: "cancelled", message: "cancelled", transient: false } };
    const cause = asObject((e as { cause?: unknown }).cause);
    const detail = [errorMessage(e), asString(cause.code) || asString(cause.message)]
      .filter((s) => s !== "")
      .join(": ");
    return {
      ok: false,
      failure: { kind: "api_error", message: `connection failed: ${detail}`, transient: true },
    };
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onAbort);
  }
}

/** One model call with retries of transient failures (safe here: these backends run no tools). */
export async function runHttp(deps: HttpDeps, req: AgentRequest, call: HttpCall): Promise<AgentResult> {
  const started = deps.clock.now();
  const emit = (
    kind: "status" | "usage",
    message: string,
    extra: Partial<{ usage: TokenUsage; costUsd: number; responseStarted: true }> = {},
  ): void => {
    try {
      req.onProgress?.({ kind, message, ...extra });
    } catch {
      // onProgress must not throw; the run does not pay for it if it does.
    }
  };
  emit("status", `POST ${call.url}`);
  let answering = false;
  const onResponseStart = (): void => {
    if (answering) return;
    answering = true;
    emit("status", "response started", { responseStarted: true });
  };
  const out = await withRetry(() => once(deps, req, { ...call, onResponseStart }), {
    policy: deps.retry,
    deps: { clock: deps.clock, jitter: deps.jitter },
    signal: req.signal,
    shouldRetry: (a) => !a.ok && a.failure.transient,
    onRetry: (a, n, delay) => emit("status", `${a.ok ? "" : a.failure.message}; retry ${n} in ${delay}ms`),
  });
  const durationMs = deps.clock.now() - started;
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  if (!out.ok)
    return { ok: false, text: "", usage: zero, costUsd: 0, exitCode: null, failure: out.failure, durationMs };
  const costUsd = out.reply.usage ? call.price(out.reply.usage) : 0;
  emit("usage", "done", { usage: out.reply.usage, costUsd });
  return {
    ok: true,
    text: out.reply.text,
    ...(out.reply.structured === undefined ? {} : { structured: out.reply.structured }),
    usage: out.reply.usage,
    costUsd,
    exitCode: null,
    durationMs,
    numTurns: 1,
  };
}

/** A run that cannot start because the configuration lacks something: a failure, not a throw. */
export function unconfigured(message: string): AgentResult {
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return {
    ok: false,
    text: "",
    usage,
    costUsd: 0,
    exitCode: null,
    durationMs: 0,
    failure: { kind: "api_error", message, transient: false },
  };
}

/** `base` + `path`, where `base` may or may not already end in `/v1`. */
export function apiUrl(base: string, path: string): string {
  const b = base.replace(/\/+$/, "");
  return b.endsWith("/v1") ? `${b}${path}` : `${b}/v1${path}`;
}
