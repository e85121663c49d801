import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicApiBackend } from "../../src/agents/anthropic-api.js";
import { createOpenAIApiBackend } from "../../src/agents/openai-api.js";
import type { AgentBackend } from "../../src/domain/agent.js";
import { backendScript, DONE_USAGE, REVIEW, REVIEW_SCHEMA } from "./backend-script.js";
import { request } from "./e2e-helpers.js";
import { type FakeModel, startFakeModel } from "./fake-model/server.js";

/** The HTTP backends (review stages without tools) against the same fake model server. */

let fake: FakeModel;

beforeAll(async () => {
  fake = await startFakeModel(backendScript());
});
afterAll(async () => {
  await fake?.close();
});

const retry = { attempts: 2, baseMs: 5, maxMs: 5 };
const noEnv = { PATH: process.env.PATH ?? "" };

const cases: {
  name: string;
  make: (url: string) => AgentBackend;
  env: Record<string, string>;
  api: string;
}[] = [
  {
    name: "anthropic",
    make: (url) =>
      createAnthropicApiBackend({
        baseUrl: url,
        model: "claude-sonnet-4-5",
        deps: { retry, baseEnv: noEnv },
      }),
    env: { ANTHROPIC_API_KEY: "test-key" },
    api: "anthropic",
  },
  {
    name: "openai (Responses)",
    make: (url) =>
      createOpenAIApiBackend({ baseUrl: `${url}/v1`, model: "gpt-5", deps: { retry, baseEnv: noEnv } }),
    env: { OPENAI_API_KEY: "test-key" },
    api: "responses",
  },
  {
    name: "openai (Chat Completions)",
    make: (url) =>
      createOpenAIApiBackend({ baseUrl: url, model: "gpt-5", wire: "chat", deps: { retry, baseEnv: noEnv } }),
    env: { OPENAI_API_KEY: "test-key" },
    api: "chat",
  },
];

describe.each(cases)("$name backend", (c) => {
  const req = (prompt: string, extra: Parameters<typeof request>[2] = {}) =>
    request("/", prompt, { purpose: "review", agent: "reviewer", env: c.env, ...extra });

  it("returns the structured review through the API's JSON-schema output, with usage and cost", async () => {
    const from = fake.requests.length;
    const result = await c.make(fake.url).run(req("Review this diff: +x", { schema: REVIEW_SCHEMA }));
    expect(result.failure).toBeUndefined();
    expect(result.structured).toEqual(REVIEW);
    const seen = fake.requests.slice(from).find((r) => r.conversation);
    expect(seen?.conversation?.api).toBe(c.api);
    expect(seen?.conversation?.schema).toEqual(REVIEW_SCHEMA);
    expect(JSON.stringify(seen?.headers)).toContain("test-key");
    const cacheWrite = c.api === "anthropic" ? DONE_USAGE.cacheWrite : 0;
    expect(result.usage).toEqual({ ...DONE_USAGE, cacheWrite });
    // Both models are in the default price table: claude-sonnet-4 $3/$15, gpt-5 $1.25/$10.
    const expected = c.api === "anthropic" ? (1300 * 3 + 20 * 15) / 1e6 : (1300 * 1.25 + 20 * 10) / 1e6;
    expect(result.costUsd).toBeCloseTo(expected, 12);
  });

  it("reports HTTP 400 without retrying and HTTP 500 after a retry", async () => {
    const backend = c.make(fake.url);
    const from = fake.requests.length;
    const bad = await backend.run(req("FAIL_400"));
    expect(bad.failure).toEqual({
      kind: "api_error",
      message: "API error 400: prompt is malformed",
      transient: false,
    });
    const down = await backend.run(req("FAIL_500"));
    expect(down.failure).toEqual({
      kind: "api_error",
      message: "API error 500: the model fell over",
      transient: true,
    });
    expect(fake.requests.slice(from).map((r) => r.rule)).toEqual(["400", "500", "500"]);
  });

  it("ends a hung call at the timeout", async () => {
    const result = await c.make(fake.url).run(req("HANG_NOW", { timeoutMs: 300 }));
    expect(result.failure).toEqual({ kind: "timeout", message: "timed out after 300ms", transient: false });
  });

  it("says `auth failed` on 401 and `connection failed` when nothing listens", async () => {
    const denied = await c.make(fake.url).run(req("FAIL_401"));
    expect(denied.failure).toEqual({
      kind: "auth",
      message: "auth failed: invalid x-api-key",
      transient: false,
    });
    const gone = await c.make("http://127.0.0.1:1").run(req("hello"));
    expect(gone.failure?.message).toMatch(/^connection failed: /);
    expect(gone.failure?.transient).toBe(true);
  });
});
